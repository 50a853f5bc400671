#!/usr/bin/env python3
"""Writes the fixture profiles. Run it from this folder; the outputs are committed beside it."""
import plistlib

TEAM = "SKMME9E2Y8"


def xml(name, value):
    with open(name, "wb") as f:
        plistlib.dump(value, f, fmt=plistlib.FMT_XML)


app = {
    "application-identifier": f"{TEAM}.com.example.app",
    "com.apple.developer.team-identifier": TEAM,
    "keychain-access-groups": [f"{TEAM}.com.example.app", f"{TEAM}.com.example.shared"],
    "com.apple.security.application-groups": ["group.com.example"],
}
xml("app.plist", app)
with open("app-binary.plist", "wb") as f:
    plistlib.dump(app, f, fmt=plistlib.FMT_BINARY)

xml("share-extension.plist", {
    "application-identifier": f"{TEAM}.com.example.app.share",
    "keychain-access-groups": [f"{TEAM}.com.example.shared"],
    "com.apple.security.application-groups": ["group.com.example"],
})
# A widget whose target never got the Keychain Sharing capability: only its app ID and app group.
xml("widget.plist", {
    "application-identifier": f"{TEAM}.com.example.app.widget",
    "com.apple.security.application-groups": ["group.com.example"],
})
xml("other-team.plist", {
    "application-identifier": "ZZZZZ99999.com.other.app",
    "keychain-access-groups": ["ZZZZZ99999.com.example.shared"],
})
xml("no-entitlements.plist", {})
xml("token-reader.plist", {"keychain-access-groups": ["com.apple.token"]})
xml("app-clip.plist", {
    "application-identifier": f"{TEAM}.com.example.app.Clip",
    "com.apple.developer.on-demand-install-capable": True,
    "com.apple.security.application-groups": ["group.com.example"],
})
# An App Clip that also claims a keychain group: Apple restricts its keychain calls (-34020).
xml("app-clip-shared.plist", {
    "application-identifier": f"{TEAM}.com.example.app.Clip",
    "com.apple.developer.on-demand-install-capable": True,
    "keychain-access-groups": [f"{TEAM}.com.example.shared"],
})
xml("associated-app-id.plist", {
    "application-identifier": f"{TEAM}.com.example.app.watchkitapp",
    "com.apple.developer.associated-application-identifier": [f"{TEAM}.com.example.app"],
})
xml("source-variables.entitlements", {
    "application-identifier": "$(AppIdentifierPrefix)com.example.app",
    "keychain-access-groups": ["$(AppIdentifierPrefix)com.example.shared", "$(TeamIdentifierPrefix)com.example.team"],
})
xml("unresolvable-variable.entitlements", {
    "application-identifier": f"{TEAM}.com.example.app",
    "keychain-access-groups": ["$(AppIdentifierPrefix)$(CFBundleIdentifier)"],
})
xml("legacy-prefix.plist", {
    "application-identifier": "ABCDE12345.com.example.legacy",
    "com.apple.developer.team-identifier": TEAM,
    "keychain-access-groups": ["ABCDE12345.com.example.legacy", f"{TEAM}.com.example.shared"],
})
xml("non-string-array.plist", {
    "application-identifier": f"{TEAM}.com.example.app",
    "keychain-access-groups": [f"{TEAM}.com.example.shared", 7],
})
xml("wildcard.plist", {"application-identifier": f"{TEAM}.com.apple.tool", "keychain-access-groups": ["*"]})

provisioning = {
    "AppIDName": "Example",
    "ApplicationIdentifierPrefix": [TEAM],
    "TeamIdentifier": [TEAM],
    "Platform": ["iOS"],
    "Name": "Example Development",
    "Entitlements": {
        "application-identifier": f"{TEAM}.com.example.app",
        "keychain-access-groups": ["$(AppIdentifierPrefix)com.example.shared"],
        "com.apple.security.application-groups": ["group.com.example"],
    },
}
xml("app.mobileprovision.plist", provisioning)


def sign(source, target, stream=True):
    """Signs `source` as Apple signs a profile: CMS SignedData with the plist embedded. With
    `stream`, BER with indefinite lengths and a chunked OCTET STRING, as real profiles are; without,
    definite-length DER. The signer is a throwaway self-signed certificate: keychainctl reads the
    content and never trusts the signature."""
    import os
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as scratch:
        key, cert = os.path.join(scratch, "key.pem"), os.path.join(scratch, "cert.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                        "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=keychainctl fixture signer"],
                       check=True, capture_output=True)
        subprocess.run(["openssl", "cms", "-sign", "-nodetach", "-binary", "-outform", "DER", "-in", source,
                        "-signer", cert, "-inkey", key, "-out", target] + (["-stream"] if stream else []),
                       check=True, capture_output=True)


sign("app.mobileprovision.plist", "app.mobileprovision")


def development_profile(name, app_id, platform="iOS", extra=None):
    """A development profile as Xcode downloads it: the allowlist is TEAMID.* and the token group."""
    key = "com.apple.application-identifier" if platform == "OSX" else "application-identifier"
    entitlements = {
        key: app_id,
        "keychain-access-groups": [f"{TEAM}.*"] + (["com.apple.token"] if platform == "iOS" else []),
        "com.apple.developer.team-identifier": TEAM,
        "get-task-allow": True,
        "com.apple.security.application-groups": ["group.com.example"],
    }
    entitlements.update(extra or {})
    import datetime
    return {
        "AppIDName": name, "ApplicationIdentifierPrefix": [TEAM], "TeamIdentifier": [TEAM], "TeamName": "Example Ltd",
        "Name": f"{name} Development", "Platform": [platform], "IsXcodeManaged": True, "Version": 1,
        "CreationDate": datetime.datetime(2026, 1, 10, 9, 0, 0),
        "ExpirationDate": datetime.datetime(2027, 1, 10, 9, 0, 0),
        "ProvisionedDevices": ["00008110-000A1B2C3D4E5F60"],
        "DeveloperCertificates": [b"not a certificate"],
        "Entitlements": entitlements,
    }


for name, app_id, platform, extension in [
    ("Example", f"{TEAM}.com.example.app", "iOS", "mobileprovision"),
    ("Example Share", f"{TEAM}.com.example.app.share", "iOS", "mobileprovision"),
    ("Example Widget", f"{TEAM}.com.example.app.widget", "iOS", "mobileprovision"),
    ("Example Mac", f"{TEAM}.com.example.mac", "OSX", "provisionprofile"),
]:
    stem = name.lower().replace("example", "").strip().replace(" ", "-") or "app"
    plain = f"dev-{stem}.plist"
    xml(plain, development_profile(name, app_id, platform))
    sign(plain, f"dev-{stem}.{extension}", stream=platform == "iOS")
    import os
    os.remove(plain)
# Another team's profile: allows nothing of SKMME9E2Y8's.
xml("other-team.mobileprovision.plist", {
    "Name": "Other Team Development", "Platform": ["iOS"], "ApplicationIdentifierPrefix": ["ZZZZZ99999"],
    "TeamIdentifier": ["ZZZZZ99999"],
    "Entitlements": {"application-identifier": "ZZZZZ99999.*", "keychain-access-groups": ["ZZZZZ99999.*", "com.apple.token"]},
})

# codesign output: `codesign -d --entitlements - --xml App.app 2>&1` (the Executable= line comes
# first), and the older `--entitlements :-` blob: magic 0xFADE7171, big-endian length, the XML.
app_xml = plistlib.dumps(app, fmt=plistlib.FMT_XML)
with open("app.codesign.txt", "wb") as f:
    f.write(b"Executable=/Applications/Example.app/Example\n" + app_xml)
with open("app.codesign-blob", "wb") as f:
    f.write(bytes([0xFA, 0xDE, 0x71, 0x71]) + (len(app_xml) + 8).to_bytes(4, "big") + app_xml)

# macOS targets: an app whose profile is given with --provisioning; a Developer ID build that
# claims only its application identifier (C4, C7); a command-line tool with app groups only.
xml("mac-app.entitlements", {
    "com.apple.application-identifier": f"{TEAM}.com.example.mac",
    "keychain-access-groups": [f"{TEAM}.com.example.shared"],
    "com.apple.security.application-groups": ["group.com.example"],
})
xml("mac-appid-only.plist", {"com.apple.application-identifier": f"{TEAM}.com.example.mac"})
xml("mac-app-groups-only.plist", {"com.apple.security.application-groups": [f"{TEAM}.com.example.group"]})

xml("macos.provisionprofile.plist", {
    "ApplicationIdentifierPrefix": [TEAM],
    "TeamIdentifier": [TEAM],
    "Platform": ["OSX"],
    "Entitlements": {
        "com.apple.application-identifier": f"{TEAM}.com.example.mac",
        "keychain-access-groups": [f"{TEAM}.com.example.shared"],
    },
})
with open("malformed.plist", "w") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict><key>application-identifier</key>\n')
with open("not-a-dictionary.plist", "wb") as f:
    plistlib.dump(["an", "array"], f, fmt=plistlib.FMT_XML)
