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

/// SwiftPM links an executable's entry point as `<module>_main`: hand the process to libFuzzer's
/// driver with this target's callback.
@_cdecl("fuzz_arguments_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    var count = argc
    var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return LLVMFuzzerRunDriver(&count, &arguments, fuzzArguments)
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt
