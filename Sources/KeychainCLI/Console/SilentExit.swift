/// An exit whose report is already on stdout (explain's `--strict`, lint's findings): the status,
/// with nothing more on stderr.
struct SilentExit: Error {
    let code: Int32
}

/// An exit with a status of its own and a one-line `keychainctl:` message (exec's 126, 127 and 74).
struct SilentExitWithMessage: Error {
    let code: Int32
    let message: String
}
