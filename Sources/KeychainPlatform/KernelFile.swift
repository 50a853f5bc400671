import Glibc

/// The small files the kernel serves (/proc, cgroupfs): read whole, written in one call.
enum KernelFile {
    /// The bytes of `path` (at most 1 MiB), none when it cannot be read.
    static func bytes(of path: String) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while bytes.count < 1 << 20 {
            let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { break }
            bytes += buffer.prefix(got)
        }
        return bytes
    }

    /// The lines of `path`, none when it cannot be read.
    static func lines(of path: String) -> [String] {
        bytes(of: path).split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Writes `text` to `path` in one call; whether all of it was taken.
    static func write(_ text: String, to path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count
    }

    /// The names in folder `path` (without "." and ".."), none when it cannot be read.
    static func names(in path: String) -> [String] {
        guard let folder = opendir(path) else { return [] }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
