import Glibc

/// Small POSIX file reads and writes, without pulling in Foundation's file machinery.
package enum FileBytes {
    /// Reads at most `limit` bytes of the file at `path`; `nil` on error (see `errno`).
    package static func read(path: String, limit: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return readAll(fd, limit: limit)
    }

    /// At most `limit` bytes of `fd`, to its end; `nil` on error (see `errno`). The chunk it reads
    /// into is left uninitialised: zeroing 64 KB for a profile of one was 65,000 instructions of
    /// every command that reads one.
    private static func readAll(_ fd: Int32, limit: Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        let complete = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 65_536) { chunk -> Bool in
            while bytes.count < limit {
                let got = Glibc.read(fd, chunk.baseAddress, min(chunk.count, limit - bytes.count))
                if got < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                if got == 0 { break }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[0..<got]))
            }
            return true
        }
        return complete ? bytes : nil
    }

    /// Why `readRegular` read nothing.
    package enum ReadFailure: Error {
        /// No file at the path.
        case missing
        /// A symbolic link, FIFO, socket, device or folder: refused without being read (or blocked on).
        case notRegular
        /// Any other failure, with its errno.
        case failed(Int32)
    }

    /// At most `limit` bytes of the regular file at `path`, never through a final symbolic link and
    /// never blocking: the file is opened non-blocking and checked before anything is read, so a
    /// FIFO put in its place cannot hang the reader.
    package static func readRegular(path: String, limit: Int) -> Result<[UInt8], ReadFailure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else {
            switch errno {
            case ENOENT: return .failure(.missing)
            case ELOOP: return .failure(.notRegular)
            default: return .failure(.failed(errno))
            }
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return .failure(.failed(errno)) }
        guard status.st_mode & S_IFMT == S_IFREG else { return .failure(.notRegular) }
        guard let bytes = readAll(fd, limit: limit) else { return .failure(.failed(errno)) }
        return .success(bytes)
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
}
