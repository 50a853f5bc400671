import CTerminal

/// A terminal's echo, turned off for a no-echo prompt and back on however the prompt ends: the
/// shim's signal handlers restore it on INT, TERM, HUP and QUIT before the signal's default.
public enum Terminal {
    /// Turns echo off on terminal `fd`; false when `fd` is no terminal or its settings would not change.
    public static func echoOff(_ fd: Int32) -> Bool { cterminal_echo_off(fd) == 0 }

    /// Restores the settings `echoOff` changed; false when they could not be restored.
    public static func restoreEcho() -> Bool { cterminal_echo_restore() == 0 }
}

/// A terminal of its own for a program keychainctl runs (exec's command): a new pseudo-terminal,
/// and the caller's terminal in raw mode while keychainctl relays between them.
public enum PseudoTerminal {
    /// A new pty with the settings and window size of terminal `like`: its master (non-blocking)
    /// and slave, both close-on-exec; `nil` with errno set.
    public static func open(like: Int32) -> (master: Int32, slave: Int32)? {
        var master: Int32 = -1
        var slave: Int32 = -1
        guard cterminal_open_pty(like, &master, &slave) == 0 else { return nil }
        return (master, slave)
    }

    /// Gives pty `master` the window size of terminal `from`.
    public static func copyWindow(from: Int32, to master: Int32) { _ = cterminal_copy_window(from, master) }

    /// Puts terminal `fd` in raw mode, when this process has its foreground; whether it did.
    public static func raw(_ fd: Int32) -> Bool { cterminal_raw(fd) == 0 }

    /// Restores what `raw` changed.
    public static func restore() { _ = cterminal_raw_restore() }

    /// Whether this process is in the foreground process group of terminal `fd`.
    public static func isForeground(_ fd: Int32) -> Bool { cterminal_foreground(fd) != 0 }
}
