import Glibc

/// Small POSIX file reads, without pulling in Foundation's file machinery.
package enum FileBytes {
    /// Reads at most `limit` bytes of the file at `path`; `nil` on error (see `errno`).
    package static func read(path: String, limit: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
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

    /// `strerror(errno)`.
    package static func lastErrorDescription() -> String { String(cString: strerror(errno)) }
}
