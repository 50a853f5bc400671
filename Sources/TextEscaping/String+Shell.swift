extension String {
    /// The string as one word of a POSIX shell command, for a command printed for the user to run:
    /// as it is when it holds only characters no shell treats specially, else in single quotes
    /// (each `'` written `'\''`); terminal-safe either way.
    public var shellQuoted: String {
        let plain =
            !isEmpty
            && utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || "@%+=:,./_-".utf8.contains(byte)
            }
        return plain ? self : ("'" + split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'").terminalSafe
    }
}
