import FuzzTargets
import Glibc

/// `fuzz-all TARGET [libFuzzer options] [corpus folders]`: one executable, built once with
/// `-sanitize=fuzzer,address`, for every target of `FuzzTarget`. A broken property traps, as a
/// crash does, so libFuzzer keeps the input.
nonisolated(unsafe) private var selected = FuzzTarget.profile

/// libFuzzer's entry for one input (named so that a debug build, which links libFuzzer's own
/// `main` object too, resolves it; `fuzzMain` is the entry that runs).
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    do { try selected.run(data, count) } catch { preconditionFailure("fuzz-\(selected.rawValue): \(error)") }
    return 0
}

/// The entry point SwiftPM links for this executable: picks the target, then hands the rest of
/// the command line to libFuzzer's driver.
@_cdecl("fuzz_all_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    let name = argc > 1 ? argv[1].map { String(cString: $0) } : nil
    guard let name, let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
        let usage = "usage: fuzz-all \(names) [libFuzzer options] [corpus folders]\n"
        _ = usage.withCString { write(2, $0, strlen($0)) }
        return 64
    }
    selected = target
    // libFuzzer sees the program name and what follows the target's name.
    var arguments: [UnsafeMutablePointer<CChar>?] = [argv[0]] + (2..<Int(argc)).map { argv[$0] } + [nil]
    var count = argc - 1
    return arguments.withUnsafeMutableBufferPointer { buffer in
        var pointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = buffer.baseAddress
        return runFuzzerDriver(&count, &pointer, testOneInput)
    }
}

@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt
