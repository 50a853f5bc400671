#!/usr/bin/env python3
"""Writes hostile .ipa files into the folder given as the argument, each named for its attack.

Tests read every one through the binary and expect a documented exit (78, naming the problem) in
well under a second: never a crash, a hang, a file written outside the sandbox, or an app other
than the one the archive plainly holds. Built from Example.ipa beside this script.
"""
import os
import struct
import sys
import warnings
import zipfile

# Two entries of one name are the point of duplicate.ipa.
warnings.filterwarnings("ignore", "Duplicate name")

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1]
with zipfile.ZipFile(os.path.join(HERE, "Example.ipa")) as z:
    ORIGINAL = [(info, z.read(info)) for info in z.infolist()]
RAW = open(os.path.join(HERE, "Example.ipa"), "rb").read()


def write(name, entries, mutate=None):
    path = os.path.join(OUT, name)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for entry_name, data, mode in entries:
            info = zipfile.ZipInfo(entry_name, date_time=(1980, 1, 1, 0, 0, 0))
            info.create_system = 3
            info.external_attr = mode << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    if mutate:
        data = bytearray(open(path, "rb").read())
        mutate(data)
        open(path, "wb").write(bytes(data))


def app(prefix="Payload/Example.app", extra=()):
    entries = []
    for info, data in ORIGINAL:
        if info.filename.endswith("/"):
            continue
        name = info.filename.replace("Payload/Example.app", prefix, 1)
        entries.append((name, data, info.external_attr >> 16))
    return entries + list(extra)


def central(data):
    """Offsets of the central directory entries."""
    at, found = 0, []
    while True:
        at = data.find(b"PK\x01\x02", at)
        if at < 0:
            return found
        found.append(at)
        at += 4


open(os.path.join(OUT, "truncated.ipa"), "wb").write(RAW[: len(RAW) // 2])
open(os.path.join(OUT, "empty.ipa"), "wb").write(b"PK\x03\x04")
write("traversal.ipa", app(extra=[("Payload/Example.app/../../../escape", b"x", 0o100644)]))
write("absolute.ipa", [("/Payload/Example.app/Info.plist", b"x", 0o100644)] + app())
write("control.ipa", app(extra=[("Payload/Example.app/\x1b[2Jx", b"x", 0o100644)]))
# The same name twice, the second an app of another bundle identifier: two readers, two apps.
other = next(d for i, d in ORIGINAL if i.filename == "Payload/Example.app/Info.plist").replace(b"com.example.app", b"com.evil.apps")
write("duplicate.ipa", app(extra=[("Payload/Example.app/Info.plist", other, 0o100644)]))
write("two-apps.ipa", app() + app("Payload/Other.app"))
write("no-app.ipa", [("Payload/readme.txt", b"nothing here", 0o100644)])
# Info.plist a link to a file outside: a link is never read as a file.
write("symlink.ipa", [e for e in app() if not e[0].endswith("Example.app/Info.plist")]
      + [("Payload/Example.app/Info.plist", b"/etc/passwd", 0o120777)])
# A 256 MiB executable of zeros: about a thousand times its compressed size.
write("bomb.ipa", [e for e in app() if not e[0].endswith("Example.app/Example")]
      + [("Payload/Example.app/Example", bytes(256 << 20), 0o100755)])
# An Info.plist of 2 MiB: larger than any profile may be.
write("huge-entry.ipa", [e for e in app() if not e[0].endswith("Example.app/Info.plist")]
      + [("Payload/Example.app/Info.plist", b"<plist>" + b" " * (2 << 20) + b"</plist>", 0o100644)])
# The executable is itself an archive (an .ipa inside the .ipa): never opened as one.
write("nested.ipa", [e for e in app() if not e[0].endswith("Example.app/Example")]
      + [("Payload/Example.app/Example", RAW, 0o100755)])
# Extensions nested 12 deep, and 80 side by side: the walk stops at its caps.
info_plist = next(d for i, d in ORIGINAL if i.filename == "Payload/Example.app/PlugIns/Share.appex/Info.plist")
share = next(d for i, d in ORIGINAL if i.filename == "Payload/Example.app/PlugIns/Share.appex/Share")
deep, folder = [], "Payload/Example.app"
for level in range(12):
    folder += "/PlugIns/Deep.appex"
    deep += [(folder + "/Info.plist", info_plist, 0o100644), (folder + "/Share", share, 0o100755)]
write("deep.ipa", app() + deep)
write("many.ipa", app() + [(f"Payload/Example.app/PlugIns/S{n:03}.appex/{leaf}", data, mode)
                           for n in range(80) for leaf, data, mode in [("Info.plist", info_plist, 0o100644), ("Share", share, 0o100755)]])


def lie_about_size(data):
    # Info.plist's central entry claims 10 bytes: the inflated bytes then fail the check.
    for at in central(data):
        length = struct.unpack_from("<H", data, at + 28)[0]
        if data[at + 46: at + 46 + length].endswith(b"Example.app/Info.plist"):
            struct.pack_into("<I", data, at + 24, 10)


def lie_about_offset(data):
    # Every entry's local header offset points past the end of the file.
    for at in central(data):
        struct.pack_into("<I", data, at + 42, len(data) + 1000)


def lie_about_count(data):
    # The end record claims 65535 entries, the directory size a gigabyte.
    end = data.rfind(b"PK\x05\x06")
    struct.pack_into("<HHI", data, end + 8, 0xFFFF, 0xFFFF, 1 << 30)


def overlap(data):
    # Every entry's local header is the first one: overlapping entries, one body for all.
    for at in central(data):
        struct.pack_into("<I", data, at + 42, 0)


write("lying-size.ipa", app(), lie_about_size)
write("lying-offset.ipa", app(), lie_about_offset)
write("lying-count.ipa", app(), lie_about_count)
write("overlapping.ipa", app(), overlap)
