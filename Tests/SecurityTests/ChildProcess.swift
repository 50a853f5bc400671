import Foundation

// Running another program from a test: OpenSSL's command, Python's cryptography, or this test
// binary itself in a run of its own.

/// Runs `executable` with `arguments`, where each name of `files` stands for a temporary file
/// holding its bytes, with `environment` (the test's own when `nil`) and no input: its status and
/// what it printed, stdout then stderr. No child waits for ever: it is killed after `timeout`
/// seconds, and the test then fails on its status.
func runChild(
    _ executable: String, _ arguments: [String], files: [String: Data] = [:], environment: [String: String]? = nil, timeout: Double = 60
)
    throws -> (status: Int32, output: Data)
{
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    var paths: [String: String] = [:]
    for (index, (name, bytes)) in files.enumerated() {
        paths[name] = folder.appendingPathComponent("input-\(index)").path
        try bytes.write(to: URL(fileURLWithPath: paths[name]!))
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments.map { paths[$0] ?? $0 }
    if let environment { process.environment = environment }
    let output = Pipe()
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let watchdog = DispatchWorkItem { process.terminate() }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
    defer { watchdog.cancel() }
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, printed)
}
