import KeychainCLI

/// Fuzz target: NUL-separated words as a command line, parsed and built for its command
/// (nothing runs), and each word as an `exec` QUERY. The first byte picks the subcommand so every
/// option table is reached. What parses must parse the same in its canonical spelling.
func fuzzArguments(_ data: UnsafePointer<UInt8>, _ count: Int) throws(FuzzViolation) {
    let bytes = UnsafeBufferPointer(start: data, count: count)
    guard let first = bytes.first else { return }
    let commands = KeychainCommandLine.commandNames
    let words = bytes.dropFirst().split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    let arguments = [commands[Int(first) % commands.count]] + words
    _ = KeychainCommandLine.parseOnly(arguments)
    try require(KeychainCommandLine.parsesTheSameCanonically(arguments), "a parse differs in its canonical spelling")
    for word in words { _ = KeychainCommandLine.parsesAsQuery(word) }
    return
}
