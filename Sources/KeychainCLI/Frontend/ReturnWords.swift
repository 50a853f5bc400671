import KeychainCore

/// `--return a,b --return c` into words.
enum ReturnWords {
    static func split(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",").map { String($0) } }
    }
}
