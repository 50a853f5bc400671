import Glibc
import KeychainCore
import KeychainPlatform

/// `exec --file NAME=QUERY`: each secret's exact bytes in a file of mode 0400, in a fresh folder of
/// mode 0700 in memory-backed storage where there is some ($XDG_RUNTIME_DIR, else /dev/shm, else
/// $TMPDIR or /tmp), removed when the command ends or keychainctl is signalled.
final class ExecFiles {
    private(set) var directory: String?
    /// Each file's path, by variable name.
    private(set) var paths: [String: String] = [:]

    var isEmpty: Bool { directory == nil }

    init(_ files: [ExecPlan.Variable]) throws {
        guard !files.isEmpty else { return }
        let candidates = [Environment.value("XDG_RUNTIME_DIR"), "/dev/shm", Environment.value("TMPDIR"), "/tmp"].compactMap { $0 }
        guard let parent = candidates.first(where: { access($0, W_OK | X_OK) == 0 }) else {
            throw InputError("no writable folder for --file (tried \(candidates.joined(separator: ", "))).")
        }
        var template = Array((parent + "/keychainctl-exec.XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw InputError("cannot create a folder in \(parent): \(SystemError.text(errno)).")
        }
        let folder = String(cString: made)
        directory = folder
        do {
            for file in files {
                let path = folder + "/" + file.name
                let fd = open(path, O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC, 0o400)
                guard fd >= 0 else { throw InputError("cannot create \(path): \(SystemError.text(errno)).") }
                let written = file.value.withUnsafeBytes { FileBytes.writeAll(fd, $0) }
                close(fd)
                guard written else { throw InputError("cannot write \(path): \(SystemError.text(errno)).") }
                paths[file.name] = path
            }
        } catch {
            remove()
            throw error
        }
    }

    /// Removes every file and the folder.
    func remove() {
        guard let directory else { return }
        for path in paths.values { unlink(path) }
        rmdir(directory)
        self.directory = nil
    }

    deinit { remove() }
}
