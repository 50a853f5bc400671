#!/usr/bin/env python3
"""Writes the fixture bundles: an iOS app with a share extension and a widget, and a macOS app.

Run it from this folder; the outputs are committed beside it (a test runs it into a scratch folder,
given as its argument, and compares). Each executable is a minimal Mach-O
shaped as Xcode and codesign leave it: a header, a __TEXT segment, and an LC_CODE_SIGNATURE whose
super blob (0xfade0cc0) holds a code directory placeholder and the entitlements blob (0xfade7171);
the app's is a universal binary (arm64 and x86_64 slices, signed alike), also kept in an Xcode
archive (Example.xcarchive). The macOS app is a
simulator-style build: its entitlements sit in a __TEXT,__entitlements section, unsigned. Each
bundle embeds the signed provisioning profile of its target from ../Profiles.
"""
import os
import plistlib
import shutil
import struct
import sys

TEAM = "SKMME9E2Y8"
PROFILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Profiles")
OUT = sys.argv[1] if len(sys.argv) > 1 else "."

ARM64 = (0x0100000C, 0)
X86_64 = (0x01000007, 3)


def entitlements_xml(entitlements):
    return plistlib.dumps(entitlements, fmt=plistlib.FMT_XML, sort_keys=True)


def der(tag, body):
    """One DER element: its tag, its definite length (short or long form), its body."""
    n = len(body)
    if n < 0x80:
        return bytes([tag, n]) + body
    length = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(length)]) + length + body


def der_value(value):
    """CoreEntitlements' DER: strings UTF8String, booleans BOOLEAN, arrays SEQUENCE, dictionaries
    [CONTEXT 16] of SEQUENCE {key, value} in key order."""
    if isinstance(value, bool):
        return der(0x01, b"\xff" if value else b"\x00")
    if isinstance(value, str):
        return der(0x0C, value.encode())
    if isinstance(value, list):
        return der(0x30, b"".join(der_value(v) for v in value))
    if isinstance(value, dict):
        return der(0xB0, b"".join(der(0x30, der(0x0C, k.encode()) + der_value(v)) for k, v in sorted(value.items())))
    raise TypeError(value)


def entitlements_der(entitlements):
    """The DER entitlements blob's content: [APPLICATION 16] { INTEGER 1, the dictionary }."""
    return der(0x70, der(0x02, b"\x01") + der_value(entitlements))


def super_blob(entitlements, xml=True):
    """A code signature: a (placeholder) code directory in slot 0, the entitlements in slot 5 (XML)
    and slot 7 (DER), or in slot 7 alone when `xml` is false."""
    blobs = [(0, struct.pack(">II", 0xFADE0C02, 8))]
    if xml:
        ents = entitlements_xml(entitlements)
        blobs.append((5, struct.pack(">II", 0xFADE7171, 8 + len(ents)) + ents))
    ents_der = entitlements_der(entitlements)
    blobs.append((7, struct.pack(">II", 0xFADE7172, 8 + len(ents_der)) + ents_der))
    header = 12 + len(blobs) * 8
    index, body = b"", b""
    for slot, blob in blobs:
        index += struct.pack(">II", slot, header + len(body))
        body += blob
    return struct.pack(">III", 0xFADE0CC0, header + len(body), len(blobs)) + index + body


def thin(cpu, entitlements, signed=True, xml=True):
    """A 64-bit little-endian Mach-O: __TEXT (with __entitlements when unsigned) and the signature."""
    ents = entitlements_xml(entitlements)
    commands = []
    header_size = 32
    # __TEXT segment with one section: __text, or __entitlements for an unsigned simulator build.
    section_name = b"__text" if signed else b"__entitlements"
    segment_size = 72 + 80
    signature = super_blob(entitlements, xml) if signed else b""
    code_signature_size = 16 if signed else 0
    commands_size = segment_size + code_signature_size
    payload_offset = header_size + commands_size
    payload = b"\x00" * 16 if signed else ents
    section = struct.pack("<16s16sQQIIIIIIII", section_name, b"__TEXT", 0x100000000, len(payload), payload_offset,
                          0, 0, 0, 0, 0, 0, 0)
    segment = struct.pack("<II16sQQQQiiII", 0x19, segment_size, b"__TEXT", 0x100000000, 0x4000, 0,
                          payload_offset + len(payload), 5, 5, 1, 0) + section
    commands.append(segment)
    signature_offset = payload_offset + len(payload)
    signature_offset += (-signature_offset) % 16
    if signed:
        commands.append(struct.pack("<IIII", 0x1D, 16, signature_offset, len(signature)))
    header = struct.pack("<IiiIIIII", 0xFEEDFACF, cpu[0], cpu[1], 2, len(commands), commands_size, 0x00200085, 0)
    body = header + b"".join(commands) + payload
    body += b"\x00" * (signature_offset - len(body)) + signature
    return body


def universal(slices):
    """A fat binary of `slices` (each a thin Mach-O), aligned at 16 KiB as lipo aligns arm64."""
    count = len(slices)
    offset = 0x4000
    table = b""
    data = b""
    for cpu, body in slices:
        table += struct.pack(">iiIII", cpu[0], cpu[1], offset + len(data), len(body), 14)
        data += body + b"\x00" * ((-len(body)) % 0x4000)
    head = struct.pack(">II", 0xCAFEBABE, count) + table
    return head + b"\x00" * (offset - len(head)) + data


def bundle(path, identifier, executable_name, executable, provisioning, macos=False):
    path = os.path.join(OUT, path)
    contents = os.path.join(path, "Contents") if macos else path
    if os.path.exists(path):
        shutil.rmtree(path)
    os.makedirs(os.path.join(contents, "MacOS") if macos else contents)
    info = {
        "CFBundleIdentifier": identifier, "CFBundleExecutable": executable_name, "CFBundlePackageType": "APPL",
        "CFBundleName": executable_name,
    }
    with open(os.path.join(contents, "Info.plist"), "wb") as f:
        plistlib.dump(info, f, fmt=plistlib.FMT_BINARY if not macos else plistlib.FMT_XML)
    target = os.path.join(contents, "MacOS", executable_name) if macos else os.path.join(contents, executable_name)
    with open(target, "wb") as f:
        f.write(executable)
    os.chmod(target, 0o755)
    if provisioning:
        name = "embedded.provisionprofile" if macos else "embedded.mobileprovision"
        shutil.copyfile(os.path.join(PROFILES, provisioning), os.path.join(contents, name))


app = {
    "application-identifier": f"{TEAM}.com.example.app",
    "com.apple.developer.team-identifier": TEAM,
    "keychain-access-groups": [f"{TEAM}.com.example.app", f"{TEAM}.com.example.shared"],
    "com.apple.security.application-groups": ["group.com.example"],
}
share = {
    "application-identifier": f"{TEAM}.com.example.app.share",
    "com.apple.developer.team-identifier": TEAM,
    "keychain-access-groups": [f"{TEAM}.com.example.shared"],
    "com.apple.security.application-groups": ["group.com.example"],
}
widget = {
    "application-identifier": f"{TEAM}.com.example.app.widget",
    "com.apple.developer.team-identifier": TEAM,
    "com.apple.security.application-groups": ["group.com.example"],
}
mac = {
    "com.apple.application-identifier": f"{TEAM}.com.example.mac",
    "keychain-access-groups": [f"{TEAM}.com.example.shared"],
}

bundle("Example.app", "com.example.app", "Example", universal([(ARM64, thin(ARM64, app)), (X86_64, thin(X86_64, app))]),
       "dev-app.mobileprovision")
bundle("Example.app/PlugIns/Share.appex", "com.example.app.share", "Share", thin(ARM64, share), "dev-share.mobileprovision")
bundle("Example.app/PlugIns/Widget.appex", "com.example.app.widget", "Widget", thin(ARM64, widget),
       "dev-widget.mobileprovision")
bundle("ExampleMac.app", "com.example.mac", "ExampleMac", thin(X86_64, mac, signed=False), None, macos=True)

# An executable whose signature carries its entitlements in DER only (slot 7), as some signing
# tools leave it.
with open(os.path.join(OUT, "der-only"), "wb") as f:
    f.write(thin(ARM64, share, xml=False))

# An Xcode archive of the app, as Organizer keeps it.
archive = os.path.join(OUT, "Example.xcarchive")
if os.path.exists(archive):
    shutil.rmtree(archive)
shutil.copytree(os.path.join(OUT, "Example.app"), os.path.join(archive, "Products", "Applications", "Example.app"))
with open(os.path.join(archive, "Info.plist"), "wb") as f:
    plistlib.dump({"ArchiveVersion": 2, "Name": "Example", "SchemeName": "Example",
                   "ApplicationProperties": {"ApplicationPath": "Applications/Example.app",
                                             "CFBundleIdentifier": "com.example.app"}}, f, fmt=plistlib.FMT_XML)

# The app as the App Store and `xcodebuild -exportArchive` ship it: Payload/Example.app in a zip,
# folders listed, executables mode 0755, every time stamp 1980-01-01 so the bytes do not change.
import zipfile  # noqa: E402


def ipa(app, path):
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        root = os.path.dirname(app)
        entries = []
        for folder, folders, files in os.walk(app):
            entries.append((os.path.relpath(folder, root) + "/", None))
            entries += [(os.path.relpath(os.path.join(folder, f), root), os.path.join(folder, f)) for f in files]
        for name, source in sorted(entries):
            info = zipfile.ZipInfo("Payload/" + name, date_time=(1980, 1, 1, 0, 0, 0))
            info.create_system = 3
            if source is None:
                info.external_attr = (0o40755 << 16) | 0x10
                z.writestr(info, b"")
            else:
                executable = os.access(source, os.X_OK)
                info.external_attr = (0o100755 if executable else 0o100644) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                with open(source, "rb") as f:
                    z.writestr(info, f.read())


ipa(os.path.join(OUT, "Example.app"), os.path.join(OUT, "Example.ipa"))
