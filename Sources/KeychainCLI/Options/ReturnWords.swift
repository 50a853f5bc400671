import CommandLineKit
import KeychainCore

/// `--return a,b --return c`: the option add and find declare, and its values as words.
enum ReturnWords {
    /// A repeatable `--return WHAT` with `help`.
    static func option(_ help: String) -> Option<String> {
        .text("return", "what", repeatable: true, suggestions: .returnWords, help)
    }

    static func split(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",").map { String($0) } }
    }
}
