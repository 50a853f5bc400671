import Glibc
import KeychainFoundation
import KeychainPlatform

/// The entitlements a built executable carries, read where Apple's loader reads them: in a signed
/// Mach-O, the code signature's embedded entitlements blob (`CSSLOT_ENTITLEMENTS`, magic
/// 0xfade7171, XML), else its DER blob (`CSSLOT_DER_ENTITLEMENTS`, 0xfade7172), reached through
/// `LC_CODE_SIGNATURE` and its super blob (0xfade0cc0); in a simulator build, the
/// `__TEXT,__entitlements` section the linker writes, else `__TEXT,__ents_der`. A universal (fat)
/// file holds one executable per architecture: every slice must carry the same entitlements.
/// What is returned is the plist (XML) or the DER, which `PlistValue.read` tells apart.
///
/// The file is untrusted input: every count and offset is checked against what holds it before it
/// is followed, the numbers of slices, load commands and blobs are capped, and only the bytes the
/// headers name are read (an executable of hundreds of megabytes costs a few small reads).
package enum MachOEntitlements {
    /// Where the bytes come from: their size, and a read of `count` bytes at `offset` (`nil` when
    /// the source cannot give them).
    package struct Source {
        package let size: Int
        package let read: (_ offset: Int, _ count: Int) -> [UInt8]?

        package init(size: Int, read: @escaping (_ offset: Int, _ count: Int) -> [UInt8]?) {
            self.size = size
            self.read = read
        }

        /// Bytes already in memory (an archive's entry, a fuzzer's input).
        package static func bytes(_ bytes: [UInt8]) -> Source {
            Source(size: bytes.count) { offset, count in
                guard offset >= 0, count >= 0, offset <= bytes.count, count <= bytes.count - offset else { return nil }
                return Array(bytes[offset..<offset + count])
            }
        }
    }

    /// Caps no real executable comes near.
    package static let maximumSlices = 32
    package static let maximumLoadCommands = 4096
    /// Real load commands take tens of kilobytes; a header claiming more would make a small
    /// archive inflate and hold gigabytes before anything is checked.
    package static let maximumLoadCommandsBytes = 4 << 20
    package static let maximumBlobs = 64
    /// An entitlements plist larger than a profile is refused, as a profile is.
    package static let maximumEntitlementsBytes = InputLimits.profileBytes

    /// The four magic numbers a Mach-O file starts with, as its first four bytes read: thin 32- and
    /// 64-bit in either byte order, and universal (fat) 32- and 64-bit.
    package static func isMachO(_ prefix: some Collection<UInt8>) -> Bool {
        let head = Array(prefix.prefix(4))
        guard head.count == 4 else { return false }
        let magics: [[UInt8]] = [
            [0xCE, 0xFA, 0xED, 0xFE], [0xCF, 0xFA, 0xED, 0xFE], [0xFE, 0xED, 0xFA, 0xCE], [0xFE, 0xED, 0xFA, 0xCF],
            [0xCA, 0xFE, 0xBA, 0xBE], [0xCA, 0xFE, 0xBA, 0xBF],
        ]
        return magics.contains(head)
    }

    /// The entitlements plist (XML) of the Mach-O file at `path`.
    package static func read(path: String) throws(ProfileError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ProfileError("cannot read \(path): \(SystemError.text(errno)).") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw ProfileError("cannot read \(path): not a regular file.")
        }
        let source = Source(size: Int(info.st_size)) { offset, count in
            guard offset >= 0, count >= 0 else { return nil }
            var bytes = [UInt8](repeating: 0, count: count)
            var done = 0
            while done < count {
                let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset + done)) }
                if got < 0, errno == EINTR { continue }
                guard got > 0 else { return nil }
                done += got
            }
            return bytes
        }
        return try read(source, path: path)
    }

    /// The entitlements plist (XML) of the Mach-O file `source` holds (`path` names it in errors).
    package static func read(_ source: Source, path: String) throws(ProfileError) -> [UInt8] {
        guard let magic = source.read(0, 4) else { throw damaged(path, "it is shorter than a Mach-O header") }
        let slices: [(name: String, offset: Int, size: Int)]
        if magic == [0xCA, 0xFE, 0xBA, 0xBE] || magic == [0xCA, 0xFE, 0xBA, 0xBF] {
            slices = try fatSlices(source, wide: magic[3] == 0xBF, path: path)
        } else {
            slices = [("", 0, source.size)]
        }
        var found: [(name: String, entitlements: [UInt8])] = []
        for slice in slices {
            let view = Source(size: slice.size) { offset, count in
                guard offset >= 0, count >= 0, offset <= slice.size, count <= slice.size - offset else { return nil }
                return source.read(slice.offset + offset, count)
            }
            let (name, entitlements) = try sliceEntitlements(view, path: path, fatName: slice.name)
            found.append((name, entitlements))
        }
        guard let first = found.first else { throw damaged(path, "its universal header lists no architecture") }
        if let other = found.first(where: { $0.entitlements != first.entitlements }) {
            throw ProfileError(
                "\(path) is a universal binary whose slices carry different entitlements (\(first.name) and \(other.name)); "
                    + "give one slice's entitlements (lipo -thin ARCH), or sign them alike.")
        }
        return first.entitlements
    }

    // MARK: universal files

    private static func fatSlices(_ source: Source, wide: Bool, path: String) throws(ProfileError)
        -> [(name: String, offset: Int, size: Int)]
    {
        guard let header = source.read(4, 4) else { throw damaged(path, "its universal header is truncated") }
        let count = Int(bigEndian32(header, 0))
        guard count >= 1, count <= maximumSlices else {
            throw damaged(path, "its universal header lists \(count) architectures (at most \(maximumSlices) are read)")
        }
        let entrySize = wide ? 32 : 20
        guard let table = source.read(8, count * entrySize) else { throw damaged(path, "its architecture table is truncated") }
        var slices: [(name: String, offset: Int, size: Int)] = []
        for index in 0..<count {
            let base = index * entrySize
            let cpu = bigEndian32(table, base)
            let subtype = bigEndian32(table, base + 4)
            let offset = wide ? bigEndian64(table, base + 8) : UInt64(bigEndian32(table, base + 8))
            let size = wide ? bigEndian64(table, base + 16) : UInt64(bigEndian32(table, base + 12))
            guard offset <= UInt64(source.size), size <= UInt64(source.size) - offset, size >= 28 else {
                throw damaged(path, "its slice \(index) lies outside the file")
            }
            slices.append((architecture(cpu, subtype), Int(offset), Int(size)))
        }
        // In file order, each after the last: slices that overlap or repeat (which no linker writes)
        // would have the reader go over the same bytes again, for each.
        slices.sort { $0.offset < $1.offset }
        for (earlier, later) in zip(slices, slices.dropFirst()) where later.offset < earlier.offset + earlier.size {
            throw damaged(path, "its slices \(earlier.name) and \(later.name) overlap")
        }
        return slices
    }

    // MARK: one executable

    private static let loadCodeSignature: UInt32 = 0x1D
    private static let loadSegment: UInt32 = 0x1
    private static let loadSegment64: UInt32 = 0x19

    /// The entitlements of one thin Mach-O: the code signature's blob, else the simulator's section.
    private static func sliceEntitlements(_ source: Source, path: String, fatName: String) throws(ProfileError)
        -> (String, [UInt8])
    {
        guard let magic = source.read(0, 4), isMachO(magic), magic[0] != 0xCA else {
            throw damaged(path, "\(fatName.isEmpty ? "it" : "its \(fatName) slice") is not a Mach-O executable")
        }
        let wide = magic == [0xCF, 0xFA, 0xED, 0xFE] || magic == [0xFE, 0xED, 0xFA, 0xCF]
        let little = magic[0] == 0xCE || magic[0] == 0xCF
        let headerSize = wide ? 32 : 28
        guard let header = source.read(0, headerSize) else { throw damaged(path, "its Mach-O header is truncated") }
        func word(_ bytes: [UInt8], _ at: Int) -> UInt32 { little ? littleEndian32(bytes, at) : bigEndian32(bytes, at) }
        func wideWord(_ bytes: [UInt8], _ at: Int) -> UInt64 {
            little
                ? UInt64(word(bytes, at)) | UInt64(word(bytes, at + 4)) << 32 : UInt64(word(bytes, at)) << 32 | UInt64(word(bytes, at + 4))
        }
        let name = fatName.isEmpty ? architecture(word(header, 4), word(header, 8)) : fatName
        let commandCount = Int(word(header, 16))
        let commandsSize = Int(word(header, 20))
        guard commandCount <= maximumLoadCommands, commandsSize <= maximumLoadCommandsBytes, commandsSize <= source.size - headerSize,
            let commands = source.read(headerSize, commandsSize)
        else { throw damaged(path, "its load commands (\(commandCount), \(commandsSize) bytes) do not fit in the file") }
        var signature: (offset: Int, size: Int)?
        var section: (offset: Int, size: Int)?
        var derSection: (offset: Int, size: Int)?
        var at = 0
        for _ in 0..<commandCount {
            guard at + 8 <= commands.count else { throw damaged(path, "a load command runs past the load commands") }
            let command = word(commands, at)
            let size = Int(word(commands, at + 4))
            guard size >= 8, size <= commands.count - at else { throw damaged(path, "a load command's size is \(size)") }
            if command == loadCodeSignature, size >= 16 {
                signature = (Int(word(commands, at + 8)), Int(word(commands, at + 12)))
            } else if command == loadSegment64 || command == loadSegment, segmentName(commands, at + 8) == "__TEXT" {
                let segmentHeader = command == loadSegment64 ? 72 : 56
                let sectionSize = command == loadSegment64 ? 80 : 68
                guard size >= segmentHeader else { throw damaged(path, "a segment command is \(size) bytes") }
                let sections = Int(word(commands, at + segmentHeader - 8))
                guard sections <= (size - segmentHeader) / sectionSize else {
                    throw damaged(path, "a segment lists \(sections) sections its command cannot hold")
                }
                for index in 0..<sections {
                    let entry = at + segmentHeader + index * sectionSize
                    let sectionName = segmentName(commands, entry)
                    guard sectionName == "__entitlements" || sectionName == "__ents_der" else { continue }
                    let length = command == loadSegment64 ? Int(clamping: wideWord(commands, entry + 40)) : Int(word(commands, entry + 36))
                    let offset = Int(word(commands, entry + (command == loadSegment64 ? 48 : 40)))
                    if sectionName == "__entitlements" { section = (offset, length) } else { derSection = (offset, length) }
                }
            }
            at += size
        }
        func read(_ found: (offset: Int, size: Int)) -> [UInt8]? {
            guard found.size <= maximumEntitlementsBytes, found.offset <= source.size, found.size <= source.size - found.offset else {
                return nil
            }
            return source.read(found.offset, found.size)
        }
        // A section before the signature is read first: an archive's entry inflates forward only.
        var early: [String: [UInt8]] = [:]
        for (sectionName, found) in [("__entitlements", section), ("__ents_der", derSection)] {
            guard let found, let signature, found.offset < signature.offset else { continue }
            early[sectionName] = read(found)
        }
        if let signature {
            if let entitlements = try signatureEntitlements(source, signature, path: path, slice: name) { return (name, entitlements) }
        }
        for (sectionName, found) in [("__entitlements", section), ("__ents_der", derSection)] {
            guard let found else { continue }
            guard let bytes = early[sectionName] ?? read(found) else {
                throw damaged(path, "its __TEXT,\(sectionName) section lies outside the file")
            }
            return (name, bytes)
        }
        throw ProfileError(
            "\(path)\(fatName.isEmpty ? "" : " (\(name))") is a Mach-O executable with no entitlements: it is unsigned, or signed without any "
                + "(a build without the Keychain Sharing capability has none); nothing to read.")
    }

    // MARK: the code signature

    private static let superBlobMagic: UInt32 = 0xFADE_0CC0
    private static let entitlementsSlot: UInt32 = 5
    private static let entitlementsMagic: UInt32 = 0xFADE_7171
    private static let derEntitlementsSlot: UInt32 = 7
    private static let derEntitlementsMagic: UInt32 = 0xFADE_7172

    /// The entitlements blob of the code signature at `location`: the XML one, else the DER one;
    /// `nil` when the signature has neither.
    private static func signatureEntitlements(_ source: Source, _ location: (offset: Int, size: Int), path: String, slice: String)
        throws(ProfileError) -> [UInt8]?
    {
        guard location.offset <= source.size, location.size <= source.size - location.offset, location.size >= 12,
            let header = source.read(location.offset, 12)
        else { throw damaged(path, "its code signature lies outside the file") }
        guard bigEndian32(header, 0) == superBlobMagic else { throw damaged(path, "its code signature is not a signature super blob") }
        let length = Int(bigEndian32(header, 4))
        let count = Int(bigEndian32(header, 8))
        guard length >= 12, length <= location.size, count <= maximumBlobs, count * 8 <= length - 12,
            let index = source.read(location.offset + 12, count * 8)
        else { throw damaged(path, "its code signature's header (\(count) blobs, \(length) bytes) does not fit its space") }
        var found: [[UInt8]] = []
        for (slot, magic) in [(entitlementsSlot, entitlementsMagic), (derEntitlementsSlot, derEntitlementsMagic)] {
            for entry in 0..<count where bigEndian32(index, entry * 8) == slot {
                let offset = Int(bigEndian32(index, entry * 8 + 4))
                guard offset >= 12 + count * 8, offset <= length - 8, let blob = source.read(location.offset + offset, 8) else {
                    throw damaged(path, "its entitlements blob lies outside the code signature")
                }
                let blobLength = Int(bigEndian32(blob, 4))
                guard bigEndian32(blob, 0) == magic, blobLength >= 8, blobLength <= length - offset,
                    blobLength - 8 <= maximumEntitlementsBytes,
                    let content = source.read(location.offset + offset + 8, blobLength - 8)
                else { throw damaged(path, "its entitlements blob's header does not fit the code signature") }
                found.append(content)
                break
            }
        }
        // Both forms: the system reads one or the other, so they must say the same.
        if found.count == 2, (try? PlistValue.read(found[0][...])) != (try? PlistValue.read(found[1][...])) {
            throw ProfileError(
                "\(path)\(slice.isEmpty ? "" : " (\(slice))") carries XML and DER entitlements that differ: the system may use either, "
                    + "and codesign never writes such a signature; sign it again.")
        }
        return found.first
    }

    // MARK: numbers and names

    private static func damaged(_ path: String, _ what: String) -> ProfileError {
        ProfileError("\(path) is not a Mach-O executable keychainctl can read: \(what).")
    }

    private static func bigEndian32(_ bytes: [UInt8], _ at: Int) -> UInt32 { UInt32(ByteOrder.bigEndian(bytes[at..<at + 4])) }

    private static func littleEndian32(_ bytes: [UInt8], _ at: Int) -> UInt32 { UInt32(ByteOrder.littleEndian(bytes[at..<at + 4])) }

    private static func bigEndian64(_ bytes: [UInt8], _ at: Int) -> UInt64 { ByteOrder.bigEndian(bytes[at..<at + 8]) }

    /// A 16-byte, NUL-padded name (a segment's or section's).
    private static func segmentName(_ bytes: [UInt8], _ at: Int) -> String {
        guard at + 16 <= bytes.count else { return "" }
        return String(decoding: bytes[at..<at + 16].prefix { $0 != 0 }, as: UTF8.self)
    }

    /// The architecture's usual name (`arm64`, `x86_64`), else its CPU type in hex.
    package static func architecture(_ cpu: UInt32, _ subtype: UInt32) -> String {
        switch (cpu, subtype & 0x00FF_FFFF) {
        case (0x0100_000C, 2): "arm64e"
        case (0x0100_000C, _): "arm64"
        case (0x0200_000C, _): "arm64_32"
        case (0x0100_0007, _): "x86_64"
        case (7, _): "i386"
        case (12, _): "armv7"
        default: "cpu 0x" + String(cpu, radix: 16)
        }
    }
}
