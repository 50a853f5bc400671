import Foundation
import Testing

/// Golden outputs: compared byte for byte; `KEYCHAINCTL_RECORD=1` re-records them instead.
enum GoldenFile {
    /// Whether this run records instead of comparing: `KEYCHAINCTL_RECORD` is exactly `1`.
    static var recording: Bool { ProcessInfo.processInfo.environment["KEYCHAINCTL_RECORD"] == "1" }

    /// Says that `path` was recorded rather than compared, as an issue: a recording run is never
    /// green, so it cannot pass for a checked one.
    static func recorded(_ path: String, variable: String = "KEYCHAINCTL_RECORD", sourceLocation: SourceLocation = #_sourceLocation) {
        Issue.record(
            "recorded \(path) instead of comparing it; check the diff and run again without \(variable)", sourceLocation: sourceLocation)
    }

    /// `Tests/KeychainCLITests/Golden`.
    static let folder: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden").path

    /// Checks `output` against the golden file at `path` (under `folder` when relative).
    static func check(_ output: String, _ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let full = path.hasPrefix("/") ? path : folder + "/" + path
        if recording {
            try FileManager.default.createDirectory(
                atPath: URL(fileURLWithPath: full).deletingLastPathComponent().path, withIntermediateDirectories: true)
            try output.write(toFile: full, atomically: true, encoding: .utf8)
            recorded(path, sourceLocation: sourceLocation)
            return
        }
        let expected = try String(contentsOfFile: full, encoding: .utf8)
        #expect(output == expected, "golden \(path)", sourceLocation: sourceLocation)
    }

    /// Output with what differs per run made stable: the package's path, persistent references
    /// (after `ref=`, in JSON, or bare in a hint: 28 base64 characters starting with the class)
    /// and dates.
    static func normalized(_ text: String) -> String {
        var out = text.replacingOccurrences(of: Sandbox.profiles + "/", with: "Fixtures/Profiles/")
        for pattern in [
            "ref=[A-Za-z0-9+/=]{28}", "\"v_PersistentRef\":\"[A-Za-z0-9+/=]{28}\"", "\"(cdat|mdat)\":\"[0-9T:.Z-]+\"",
            "\\b(Z2Vuc|aW5ld|Y2Vyd|a2V5c)[A-Za-z0-9+/]{22}=",
        ] {
            let regex = try! NSRegularExpression(pattern: pattern)
            out = regex.stringByReplacingMatches(in: out, range: NSRange(out.startIndex..., in: out), withTemplate: "<stable>")
        }
        return out
    }
}
