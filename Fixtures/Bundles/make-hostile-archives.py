#!/usr/bin/env python3
"""Writes hostile .ipa files into the folder given as the argument, each named for its attack.

Tests read every one through the binary and expect a documented exit (78, naming the problem) in
well under a second: never a crash, a hang, a file written outside the sandbox, or an app other
than the one the archive plainly holds. Built from Example.ipa beside this script.
"""
import os
import random
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


# Layouts that would have the Mach-O reader inflate the executable again and again: each read
# behind the last one used to start the entry over (a 20 MB archive cost 88 s of CPU).
def thin_slice():
    exe = next(d for i, d in ORIGINAL if i.filename == "Payload/Example.app/Example")
    offset, size = struct.unpack_from(">II", exe, 8 + 8)
    return exe[offset: offset + size]


def fat(slices, total, noise=True):
    """A universal binary of `total` bytes: (offset, bytes) slices, a table listing each, and 1 MiB
    of noise after the table, so that the entry stays under the archive reader's ratio cap."""
    body = bytearray(total)
    if noise:
        body[4096: 4096 + (1 << 20)] = random.Random(7).randbytes(1 << 20)
    struct.pack_into(">II", body, 0, 0xCAFEBABE, len(slices))
    for n, (offset, data) in enumerate(slices):
        struct.pack_into(">iiIII", body, 8 + 20 * n, 0x0100000C, 0, offset, len(data), 14)
        body[offset: offset + len(data)] = data
    return bytes(body)


def with_executable(data):
    return [e for e in app() if not e[0].endswith("Example.app/Example")] + [("Payload/Example.app/Example", data, 0o100755)]


THIN = thin_slice()
SIZE = 64 << 20
# 32 slices, all the same bytes at the end of a 64 MiB executable (the review's layout, scaled down).
write("repeated-slices.ipa", with_executable(fat([(SIZE - (1 << 20), THIN)] * 32, SIZE)))
# The same in 1 MiB, small enough to seed the archive fuzzer (Fixtures/Fuzz/archive).
write("repeated-small.ipa", with_executable(fat([((1 << 20) - len(THIN), THIN)] * 32, 1 << 20, noise=False)))
# 32 distinct slices spread over 64 MiB: read in one forward pass, and accepted.
write("spread-slices.ipa", with_executable(fat([((n + 1) * (2 << 20), THIN) for n in range(32)], SIZE)))


def far_blobs(slice_bytes):
    """The slice with its signature rebuilt: the DER entitlements first, the XML ones 6 MiB on,
    so that the reader, which takes the XML blob first, would have to go back for the DER one."""
    data = bytearray(slice_bytes)
    count, = struct.unpack_from("<I", data, 16)
    at, sig = 32, None
    for _ in range(count):
        command, size = struct.unpack_from("<II", data, at)
        if command == 0x1D:
            sig = at
        at += size
    dataoff, datasize = struct.unpack_from("<II", data, sig + 8)
    blob = bytes(data[dataoff: dataoff + datasize])
    blobs = {}
    for n in range(struct.unpack_from(">I", blob, 8)[0]):
        slot, offset = struct.unpack_from(">II", blob, 12 + 8 * n)
        length = struct.unpack_from(">I", blob, offset + 4)[0]
        blobs[slot] = blob[offset: offset + length]
    der, xml = blobs[7], blobs[5]
    far = 6 << 20
    signature = bytearray(far + len(xml))
    struct.pack_into(">III", signature, 0, 0xFADE0CC0, len(signature), 2)
    struct.pack_into(">IIII", signature, 12, 5, far, 7, 28)
    signature[28: 28 + len(der)] = der
    signature[far:] = xml
    struct.pack_into("<II", data, sig + 8, dataoff, len(signature))
    return bytes(data[:dataoff]) + bytes(signature)


write("far-blobs.ipa", with_executable(far_blobs(THIN)))
