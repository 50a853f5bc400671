import KeychainCore

/// `--return a,b --return c`: the option add and find declare, and its values as words.
enum ReturnWords {
    /// A repeatable `--return WHAT` with `help`.
    static func option(_ help: String) -> Option<String> {
        Option.text("return", "what", repeatable: true, help).suggesting { ["attributes", "data", "persistent-ref", "ref"] }
    }

    static func split(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",").map { String($0) } }
    }
}
