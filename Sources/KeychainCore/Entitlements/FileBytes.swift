import Glibc

/// Small POSIX file reads and writes, without pulling in Foundation's file machinery.
package enum FileBytes {
    /// Reads at most `limit` bytes of the file at `path` (not through a final symbolic link with
    /// `noFollow`); `nil` on error (see `errno`).
    package static func read(path: String, limit: Int, noFollow: Bool = false) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | (noFollow ? O_NOFOLLOW : 0))
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < limit {
            let got = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, min($0.count, limit - bytes.count)) }
            if got < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if got == 0 { break }
            bytes.append(contentsOf: chunk[0..<got])
        }
        return bytes
    }

    /// Writes all of `bytes` to `fd`, retrying short writes and EINTR; `false` on any other
    /// failure (`errno` says which).
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, base + offset, bytes.count - offset)
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// `strerror(errno)`.
    package static func lastErrorDescription() -> String { String(cString: strerror(errno)) }
}
