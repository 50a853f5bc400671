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
# A signed profile is CMS (DER) wrapping the XML plist; keychainctl cuts the plist out.
body = plistlib.dumps(provisioning, fmt=plistlib.FMT_XML)
with open("app.mobileprovision", "wb") as f:
    f.write(bytes([0x30, 0x82, 0x2F, 0x10, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02, 0xA0]))
    f.write(b"\x00\xff\x01CMS-envelope-bytes\x04\x82")
    f.write(body)
    f.write(b"\xa0\x82\x0b\x11signature-bytes\x00\xfe")

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
