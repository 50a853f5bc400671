import CommandLineKit
import KeychainCore

/// Where a command's secret comes from (docs/REFERENCE.md): a file, `-w`, standard input, or a prompt.
struct SecretInput {
    /// `--data-file`, the option naming the file (add and set).
    static let dataFile = Option.path("data-file", "Read the secret from this file, bytes kept exactly.")
    /// `--strip-newline` (add and update), which `stripNewline` carries.
    static let stripNewline = Flag("strip-newline", "Drop one trailing newline from the secret read from standard input or a file.")

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
        let limit = InputLimits.secretBytes
        if let argument {
            guard argument.utf8.count <= limit else { throw Self.tooLarge() }
            StandardStreams.warn(
                "a secret given with -w is visible to other users in the process list; prefer standard input or --data-file.")
            return SecretBytes(copying: argument.utf8)
        }
        let secret: SecretBytes
        do {
            // One byte of slack for a newline --strip-newline drops (two for CRLF).
            if let file {
                secret = try SecretFiles.readFile(file, limit: limit + 2)
            } else if !StandardStreams.isTerminal(0) {
                if passphraseFD == 0 {
                    throw UsageError("standard input carries the passphrase (--passphrase-fd 0); give the secret with --data-file.")
                }
                secret = try SecretFiles.readAll(fd: 0, source: "standard input", limit: limit + 2)
            } else {
                return try SecretReader.prompt(prompt, limit: limit)
            }
        } catch is InputTooLarge {
            throw Self.tooLarge()
        }
        if stripNewline { secret.stripTrailingNewline() }
        guard secret.count <= limit else { throw Self.tooLarge() }
        return secret
    }

    /// errSecParam: the secret is over `InputLimits.secretBytes` (nothing is stored).
    static func tooLarge() -> KeychainError {
        KeychainError(
            .param,
            hint: "a secret is at most \(InputLimits.describe(InputLimits.secretBytes)); this one is longer, so nothing was stored.")
    }
}
