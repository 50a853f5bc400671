import KeychainCore

/// Where a command's secret comes from (CLI.md, add): a file, `-w`, standard input, or a prompt.
struct SecretInput {
    let file: String?
    let argument: String?
    let stripNewline: Bool
    let passphraseFD: Int32?

    /// Reads the secret. Standard input is used when it is not a terminal, read to its end with
    /// bytes kept exactly; on a terminal the user is prompted without echo.
    func read(prompt: String) throws -> SecretBytes {
        if file != nil, argument != nil {
            throw UsageError("give the secret once: --data-file or -w, not both.")
        }
        if let argument {
            StandardStreams.warn(
                "a secret given with -w is visible to other users in the process list; prefer standard input or --data-file.")
            return SecretBytes(copying: argument.utf8)
        }
        let secret: SecretBytes
        if let file {
            secret = try SecretReader.readFile(file)
        } else if !StandardStreams.isTerminal(0) {
            if passphraseFD == 0 {
                throw UsageError("standard input carries the passphrase (--passphrase-fd 0); give the secret with --data-file.")
            }
            secret = try SecretReader.readAll(fd: 0, source: "standard input")
        } else {
            return try SecretReader.prompt(prompt)
        }
        if stripNewline { secret.stripTrailingNewline() }
        return secret
    }
}
