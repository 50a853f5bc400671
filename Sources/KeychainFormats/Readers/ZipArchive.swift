import CZip
import Glibc
import KeychainFoundation
import Synchronization
import TextEscaping

/// A zip archive (an `.ipa`: `Payload/NAME.app/…`), read in place with zlib's minizip: nothing is
/// unpacked to disk, and only the entries asked for are inflated.
///
/// The archive is untrusted input. Its central directory is listed once, with caps on the number
/// of entries and the length of names; a name that leaves the archive (`..`, a leading `/`), holds
/// a control character or appears twice refuses the whole archive (two readers could otherwise
/// see two different apps in one file). Symbolic links and encrypted entries are never read as
/// files. An entry is inflated only up to the size its header declares (minizip stops there), and
/// a declared size far beyond what its compressed bytes could hold is refused as a zip bomb.
package final class ZipArchive: Sendable {
    /// One file entry: where it is in the central directory, and its declared sizes.
    package struct Entry: Sendable {
        package let directoryOffset: UInt64
        package let index: UInt64
        package let size: Int
        package let compressedSize: Int
    }

    /// The archive file.
    package let path: String
    /// Its file entries by name (`Payload/Example.app/Info.plist`).
    package let files: [String: Entry]
    /// Every folder its names imply, with no trailing slash (`Payload`, `Payload/Example.app`).
    package let folders: Set<String>

    /// Caps no real `.ipa` comes near.
    package static let maximumEntries = 200_000
    package static let maximumNameBytes = 1024
    /// An entry inflated beyond 16 MiB may be at most this many times its compressed size (real
    /// executables compress about 3:1; deflate's own ceiling is about 1,032:1).
    package static let maximumRatio = 100
    package static let ratioFreeBytes = 16 << 20
    /// The largest entry read at all (an executable with its signature at the end).
    package static let maximumEntryBytes = 2 << 30

    /// Whether `bytes` start as a zip archive does (a local file header).
    package static func isZip(_ bytes: some Collection<UInt8>) -> Bool { bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) }

    private static let opened = Mutex<[String: ZipArchive]>([:])

    /// The archive at `path`, listed once per process however many targets read it.
    package static func open(_ path: String) throws(ProfileError) -> ZipArchive {
        if let known = opened.withLock({ $0[path] }) { return known }
        let archive = try ZipArchive(listing: path)
        opened.withLock { $0[path] = archive }
        return archive
    }

    /// Drops every archive listed so far: for a process that reads one path again after it changed
    /// (the archive fuzzer).
    package static func forgetOpened() { opened.withLock { $0.removeAll() } }

    private init(listing path: String) throws(ProfileError) {
        self.path = path
        guard let handle = unzOpen64(path) else { throw Self.damaged(path, "its central directory cannot be read") }
        defer { unzClose(handle) }
        var files: [String: Entry] = [:]
        var folders: Set<String> = []
        var names = 0
        var status = unzGoToFirstFile(handle)
        var name = [CChar](repeating: 0, count: Self.maximumNameBytes + 1)
        while status == UNZ_OK {
            names += 1
            guard names <= Self.maximumEntries else { throw Self.damaged(path, "it lists more than \(Self.maximumEntries) entries") }
            var info = unz_file_info64()
            guard unzGetCurrentFileInfo64(handle, &info, &name, uLong(name.count), nil, 0, nil, 0) == UNZ_OK else {
                throw Self.damaged(path, "entry \(names) cannot be read")
            }
            guard info.size_filename <= UInt(Self.maximumNameBytes) else {
                throw Self.damaged(path, "entry \(names) has a name of \(info.size_filename) bytes")
            }
            let raw = name.prefix(Int(info.size_filename)).map { UInt8(bitPattern: $0) }
            guard let text = String(validating: raw, as: UTF8.self), !text.containsControlCharacters, !text.contains("\\") else {
                throw Self.damaged(path, "entry \(names) has a name that is not plain UTF-8")
            }
            let isFolderName = text.hasSuffix("/")
            let components = text.split(separator: "/", omittingEmptySubsequences: false).dropLast(isFolderName ? 1 : 0)
            guard !text.hasPrefix("/"), !components.isEmpty, !components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else {
                throw Self.damaged(path, "entry '\(text.terminalSafe)' names a path outside the archive")
            }
            for depth in 1..<components.count { folders.insert(components.prefix(depth).joined(separator: "/")) }
            let joined = components.joined(separator: "/")
            if isFolderName {
                folders.insert(joined)
            } else {
                // Unix-made entries carry their mode in the high half: a link is never a file here.
                let unixMode = info.version >> 8 == 3 ? (info.external_fa >> 16) & UInt(S_IFMT) : 0
                let encrypted = info.flag & 1 != 0
                if unixMode != UInt(S_IFLNK), !encrypted {
                    var location = unz64_file_pos()
                    guard unzGetFilePos64(handle, &location) == UNZ_OK else {
                        throw Self.damaged(path, "entry '\(text.terminalSafe)' cannot be found again")
                    }
                    let entry = Entry(
                        directoryOffset: location.pos_in_zip_directory, index: location.num_of_file,
                        size: Int(clamping: info.uncompressed_size), compressedSize: Int(clamping: info.compressed_size))
                    guard files.updateValue(entry, forKey: joined) == nil else {
                        throw Self.damaged(path, "it holds '\(joined.terminalSafe)' twice")
                    }
                }
            }
            status = unzGoToNextFile(handle)
        }
        guard status == UNZ_END_OF_LIST_OF_FILE else { throw Self.damaged(path, "its central directory is damaged after entry \(names)") }
        if let both = files.keys.first(where: { folders.contains($0) }) {
            throw Self.damaged(path, "it holds '\(both.terminalSafe)' as a file and as a folder")
        }
        self.files = files
        self.folders = folders
    }

    /// File entry `name`, or its first `limit` bytes when it is larger (as a read from the disk
    /// with a limit gives); a whole entry is checked against its CRC-32.
    package func read(_ name: String, limit: Int) throws(ProfileError) -> [UInt8] {
        let stream = try EntryStream(self, name)
        let count = min(stream.size, limit)
        guard let bytes = stream.read(at: 0, count: count), count < stream.size || stream.checksumMatches() else {
            throw Self.damaged(path, "'\(name.terminalSafe)' does not inflate to what its header declares")
        }
        return bytes
    }

    /// The entitlements of the Mach-O executable that file entry `name` holds. The entry is
    /// inflated once at most, forward: the reader's reads a little behind the last one come from
    /// the bytes kept, and a layout that would need more (slices or blobs far out of order) is
    /// refused rather than inflated again, which a hostile archive could make cost minutes.
    package func machOEntitlements(_ name: String, path: String) throws(ProfileError) -> [UInt8] {
        let stream = try EntryStream(self, name)
        let source = MachOEntitlements.Source(size: stream.size) { offset, count in stream.read(at: offset, count: count) }
        do {
            return try MachOEntitlements.read(source, path: path)
        } catch {
            guard stream.readBehind else { throw error }
            throw Self.damaged(
                self.path, "'\(name.terminalSafe)' would have to be inflated again to read it (its parts lie out of order)")
        }
    }

    /// The first `count` bytes of file entry `name` (fewer when it is shorter).
    package func head(_ name: String, count: Int) throws(ProfileError) -> [UInt8] {
        let stream = try EntryStream(self, name)
        return stream.read(at: 0, count: min(count, stream.size)) ?? []
    }

    package static func damaged(_ path: String, _ what: String) -> ProfileError {
        ProfileError("\(path) is not a zip archive keychainctl can read: \(what).")
    }

    /// One entry opened for reading on a handle of its own, inflated forward once: the last
    /// bytes inflated are kept, so that a read a little behind the position (a header read again
    /// after its magic, a signature's blobs out of order) costs nothing, and a read behind them
    /// fails (`readBehind`) instead of inflating the entry from its start again.
    private final class EntryStream {
        let archive: ZipArchive
        let name: String
        let entry: Entry
        var size: Int { entry.size }
        private var handle: unzFile?
        private var opened = false
        /// How many bytes of the entry have been inflated.
        private var position = 0
        /// The last bytes inflated (at most `keptBytes` of them, once trimmed), from `tailStart`.
        private var tail: [UInt8] = []
        private var tailStart = 0
        /// Whether a read asked for bytes behind those kept.
        private(set) var readBehind = false

        /// What a Mach-O's reads reach behind the furthest one: its load commands and a blob.
        static let keptBytes = MachOEntitlements.maximumLoadCommandsBytes + MachOEntitlements.maximumEntitlementsBytes

        init(_ archive: ZipArchive, _ name: String) throws(ProfileError) {
            guard let entry = archive.files[name] else {
                throw ProfileError("\(archive.path)/\(name) is not in the archive.")
            }
            guard entry.size <= ZipArchive.maximumEntryBytes,
                entry.size <= ZipArchive.ratioFreeBytes || entry.size / max(entry.compressedSize, 1) <= ZipArchive.maximumRatio
            else {
                throw ZipArchive.damaged(
                    archive.path, "'\(name.terminalSafe)' claims \(entry.size) bytes from \(entry.compressedSize) compressed (a zip bomb)")
            }
            self.archive = archive
            self.name = name
            self.entry = entry
        }

        deinit { close() }

        private func close() {
            guard let handle else { return }
            unzCloseCurrentFile(handle)
            unzClose(handle)
            self.handle = nil
        }

        /// Opens the entry, once: a stream never starts it over.
        private func open() -> Bool {
            guard !opened else { return handle != nil }
            opened = true
            guard let file = unzOpen64(archive.path) else { return false }
            var location = unz64_file_pos(pos_in_zip_directory: entry.directoryOffset, num_of_file: entry.index)
            guard unzGoToFilePos64(file, &location) == UNZ_OK, unzOpenCurrentFile(file) == UNZ_OK else {
                unzClose(file)
                return false
            }
            handle = file
            return true
        }

        /// Whether the entry, read to its end, matches its CRC-32 (minizip checks it on closing).
        func checksumMatches() -> Bool {
            guard let handle, position == size else { return false }
            let status = unzCloseCurrentFile(handle)
            unzClose(handle)
            self.handle = nil
            return status == UNZ_OK
        }

        /// Inflates up to `count` bytes into `buffer` at `at`; how many, 0 at the end or on an error.
        private func inflate(into buffer: inout [UInt8], at: Int, count: Int) -> Int {
            guard let handle else { return 0 }
            let got = buffer.withUnsafeMutableBytes { unzReadCurrentFile(handle, $0.baseAddress! + at, UInt32(min(count, 1 << 30))) }
            return max(Int(got), 0)
        }

        /// Keeps `bytes`, just inflated, as the newest kept bytes: `keptBytes` of them at least,
        /// trimmed in halves so that keeping costs about one copy per byte.
        private func keep(_ bytes: ArraySlice<UInt8>) {
            tail += bytes
            position += bytes.count
            guard tail.count > 2 * Self.keptBytes else { return }
            let drop = tail.count - Self.keptBytes
            tail.removeFirst(drop)
            tailStart += drop
        }

        /// `count` bytes at `offset`; `nil` when the entry does not hold them, does not inflate,
        /// or they lie behind the bytes kept.
        func read(at offset: Int, count: Int) -> [UInt8]? {
            guard offset >= 0, count >= 0, offset <= size, count <= size - offset, open() else { return nil }
            guard offset >= tailStart else {
                readBehind = true
                return nil
            }
            // Skipped forward: only the bytes within keptBytes of `offset` are kept.
            var scratch = [UInt8](repeating: 0, count: 64 << 10)
            while position < offset {
                let got = inflate(into: &scratch, at: 0, count: min(scratch.count, offset - position))
                guard got > 0 else { return nil }
                if offset - (position + got) >= Self.keptBytes {
                    position += got
                    tail.removeAll(keepingCapacity: true)
                    tailStart = position
                } else {
                    keep(scratch[0..<got])
                }
            }
            var bytes = [UInt8](repeating: 0, count: count)
            let kept = min(position, offset + count) - offset
            if kept > 0 { bytes.replaceSubrange(0..<kept, with: tail[(offset - tailStart)..<(offset - tailStart + kept)]) }
            var done = kept
            while done < count {
                let got = inflate(into: &bytes, at: done, count: count - done)
                guard got > 0 else { return nil }
                keep(bytes[done..<done + got])
                done += got
            }
            return bytes
        }
    }
}
