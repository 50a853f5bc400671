import Foundation
import Testing

/// `update` killed at each step of its transaction (CrashCheck). The other commands' crash checks
/// sit with their commands: import, migrate-group, rekey, device, backup, sync and init.
@Suite struct CrashSafetyTests {
    /// 300 items' secrets replaced in one update: killed at any step, every item keeps its old
    /// secret or every item has the new one.
    @Test(.enabled(if: CrashCheck.canWatch, "machine: root"))
    func aKilledUpdateChangesEveryItemOrNone() throws {
        let sandbox = try Sandbox()
        let total = 300
        let group = "SKMME9E2Y8.com.example.app"
        try sandbox.fill(count: total, group: group)
        let check = CrashCheck(
            sandbox: sandbox,
            arguments: ["update", "-g", group, "--set-data-stdin", "--profile", Sandbox.profiles + "/app.plist"],
            stdin: Data("SECRET-changed".utf8),
            state: {
                let found = sandbox.run(["find", "-g", group, "--limit", "all", "--return", "data", "--format", "json"])
                let secrets = ((try? found.json() as? [String]) ?? []).compactMap { Data(base64Encoded: $0) }
                    .map { String(decoding: $0, as: UTF8.self) }
                let changed = secrets.filter { $0 == "SECRET-changed" }.count
                return
                    "status \(found.status) signal \(found.signal.map(String.init) ?? "none"): \(secrets.count) items, \(changed) changed"
            })
        let (_, old, new) = try check.run()
        #expect(old == "status 0 signal none: \(total) items, 0 changed")
        #expect(new == "status 0 signal none: \(total) items, \(total) changed")
    }
}
