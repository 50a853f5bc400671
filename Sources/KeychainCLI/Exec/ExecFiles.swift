import Glibc
import KeychainCore
import KeychainPlatform

/// `exec --file NAME=QUERY`: each secret's exact bytes in a sealed file in memory (mode 0400, no
/// name in any folder), handed to the command as an open descriptor N and named to it as
/// /dev/fd/N. No other exec's command can open it: there is no path to it but the command's own
/// descriptor table, which /proc shows only to processes allowed to trace the command, and each
/// command's Landlock domain reaches nothing outside it. A process of the user outside any exec
/// domain can (through /proc/PID/fd/N, where Yama allows it: always at ptrace_scope 0, and to the
/// command's ancestors at 1). It is gone when the last process holding the descriptor ends:
/// nothing to clean up after a kill.
final class ExecFiles {
    /// Each file's descriptor, by variable name.
    private(set) var descriptors: [String: Int32] = [:]

    init(_ files: [ExecPlan.Variable]) throws {
        do {
            for file in files {
                guard let fd = file.value.withUnsafeBytes({ Spawn.sealedFile(named: "keychainctl:" + file.name, $0) }) else {
                    throw InputError("cannot make the in-memory file for --file \(file.name): \(SystemError.text(errno)).")
                }
                descriptors[file.name] = fd
            }
        } catch {
            close()
            throw error
        }
    }

    /// Each file's path as the command opens it, by variable name.
    var paths: [String: String] { descriptors.mapValues { "/dev/fd/\($0)" } }

    /// Closes every descriptor (the command keeps its own copies).
    func close() {
        for fd in descriptors.values { Glibc.close(fd) }
        descriptors = [:]
    }

    deinit { close() }
}
