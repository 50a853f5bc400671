import CTerminal

/// A terminal's echo, turned off for a no-echo prompt and back on however the prompt ends: the
/// shim's signal handlers restore it on INT, TERM, HUP and QUIT before the signal's default.
public enum Terminal {
    /// Turns echo off on terminal `fd`; false when `fd` is no terminal or its settings would not change.
    public static func echoOff(_ fd: Int32) -> Bool { cterminal_echo_off(fd) == 0 }

    /// Restores the settings `echoOff` changed; false when they could not be restored.
    public static func restoreEcho() -> Bool { cterminal_echo_restore() == 0 }
}
