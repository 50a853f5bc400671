import KeychainCore

/// libFuzzer target: any bytes as a profile file (XML, binary or signed plist). Every input must
/// end in a profile or a ProfileError: no crash, no hang, no runaway memory.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProfile(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    _ = try? Profile.decode(bytes, path: "fuzz.plist", teamID: "FUZZTEAM", platform: nil, allowWildcard: false)
    return 0
}

/// SwiftPM links an executable's entry point as `<module>_main`: hand the process to libFuzzer's
/// driver with this target's callback.
@_cdecl("fuzz_profile_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    var count = argc
    var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return LLVMFuzzerRunDriver(&count, &arguments, fuzzProfile)
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt
