import CProcess
import Glibc

/// What this process keeps to itself, and how it hears signals.
public enum ProcessGuard {
    /// Writes no core dump and refuses ptrace from other processes of the user (not dumpable), so
    /// that a crash or a debugger cannot copy the keys and secrets it holds; false when it could not.
    public static func protectMemory() -> Bool { cprocess_protect_memory() == 0 }

    /// A close-on-exec, non-blocking descriptor the blocked `signals` are read from, with their
    /// senders' pids; -1 with errno set.
    public static func signalDescriptor(_ signals: inout sigset_t) -> Int32 { cprocess_signalfd(&signals) }

    /// The next signal waiting on `signalDescriptor`'s `fd` and the pid that sent it (0 for the
    /// kernel or the terminal); `nil` when none is waiting.
    public static func nextSignal(from fd: Int32) -> (signal: Int32, sender: pid_t)? {
        var info = signalfd_siginfo()
        guard read(fd, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size else { return nil }
        return (Int32(info.ssi_signo), pid_t(bitPattern: info.ssi_pid))
    }
}
