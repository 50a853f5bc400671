import KeychainCore
import TextEscaping

/// The one place that turns a failure into stderr text and an exit status (docs/REFERENCE.md).
enum ErrorReporter {
    /// Reports `error` on stderr in `format`, as `program` (the name a credential helper was called
    /// by), and returns the exit status.
    static func report(_ error: any Error, format: OutputFormat, program: String = "keychainctl") -> Int32 {
        if let strict = error as? SilentExit { return strict.code }
        if let own = error as? SilentExitWithMessage {
            StandardStreams.err("\(program): \(own.message.terminalSafe)\n")
            return own.code
        }
        let (status, name, message, hint, exitStatus) = describe(error)
        switch format {
        case .json:
            var members: [String: JSON.Value] = [
                "name": .string(name), "message": .string(message), "hint": .string(hint),
                "exit": .number(Int64(exitStatus)),
            ]
            members["status"] = status.map { .number(Int64($0)) } ?? .null
            StandardStreams.err(JSON.render(.object(["error": .object(members)])) + "\n")
        case .text:
            // Messages and hints quote file names, PEM labels and other strings from files: every
            // control character is escaped here, once, whatever built the text.
            // What happened to the user's secret first, in keychainctl's words; Apple's name, number
            // and sentence after it, for searching Apple's documentation.
            let message = message.linesTerminalSafe
            if let status, !hint.isEmpty {
                StandardStreams.err("\(program): \(hint.linesTerminalSafe)\n(\(name) \(status): \(message))\n")
            } else if let status {
                StandardStreams.err("\(program): \(message) (\(name) \(status))\n")
            } else {
                StandardStreams.err("\(program): \(message)\n")
            }
        }
        return exitStatus
    }

    /// `error`'s message alone, one line, for a warning that quotes it.
    static func summary(of error: any Error) -> String { describe(error).2.terminalSafe }

    /// What the error says to do (its hint), else its message: the one line a credential helper
    /// hands its caller.
    static func advice(of error: any Error) -> String {
        let described = describe(error)
        return (described.3.isEmpty ? described.2 : described.3).terminalSafe
    }

    /// (OSStatus, name, message, hint, exit status) for any failure: the engine's outcome
    /// (`FailureOutcome`), its kind given an exit status here.
    private static func describe(_ error: any Error) -> (Int32?, String, String, String, Int32) {
        let outcome = FailureOutcome(error)
        let exit: Int32
        var status: Int32?
        switch outcome.kind {
        case .keychain(let keychainStatus): (exit, status) = (keychainStatus.exitStatus, keychainStatus.rawValue)
        case .profileUnusable, .configurationUnusable, .inputTooLarge: exit = ExitStatusTable.unusableConfiguration
        case .keychainFileUnusable, .inputUnreadable: exit = ExitStatusTable.ioFailure
        case .internalError: exit = ExitStatusTable.bug
        }
        return (status, outcome.name, outcome.message, outcome.hint, exit)
    }
}
