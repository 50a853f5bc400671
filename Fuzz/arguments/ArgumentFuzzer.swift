import FuzzSupport
import KeychainCLI

/// libFuzzer target: NUL-separated words as a command line, parsed and built for its command
/// (nothing runs). The first byte picks the subcommand so every option table is reached.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArguments(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: count)
    guard let first = bytes.first else { return 0 }
    let commands = ["init", "add", "find", "update", "delete", "migrate-group", "groups", "verify"]
    let words = bytes.dropFirst().split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    _ = KeychainCommandLine.parseOnly([commands[Int(first) % commands.count]] + words)
    return 0
}

/// The entry point SwiftPM links for this executable.
@_cdecl("fuzz_arguments_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv, fuzzArguments)
}
