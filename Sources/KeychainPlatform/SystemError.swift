import Glibc

/// The C library's words for a system error number (`strerror`), the one way every message that
/// reports a failed system call spells it.
public enum SystemError {
    /// The text of `code`, such as "No such file or directory" for ENOENT.
    public static func text(_ code: Int32) -> String { String(cString: strerror(code)) }
}
