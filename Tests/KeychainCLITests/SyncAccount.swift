import Foundation
import Testing

/// Several devices of one account, each a keychain file of its own, and the cloud store they sync
/// through: what the sync tests drive through the real binary.
final class SyncAccount {
    let devices: [Sandbox]
    let home: Sandbox
    var cloud: String { home.folder + "/cloud" }
    var accountKey: String { home.folder + "/account.key" }

    init(devices count: Int) throws {
        home = try Sandbox(initialize: false)
        devices = try (0..<count).map { _ in try Sandbox() }
        let made = home.run(["cloud", "init", cloud, "--generate-account-key-file", accountKey], profile: nil)
        #expect(made.status == 0, "cloud init failed: \(made.stderr)")
    }

    /// Runs `sync` on device `index` (JSON report), with any extra arguments.
    @discardableResult
    func sync(_ index: Int, _ extra: [String] = [], cloud: String? = nil) -> Sandbox.Run {
        devices[index].run(
            ["sync", "--cloud", cloud ?? self.cloud, "--format", "json"] + extra, profile: nil,
            environment: ["KEYCHAINCTL_ACCOUNT_KEY_FILE": accountKey])
    }

    /// The report's items with `action` from a JSON sync run.
    static func items(_ run: Sandbox.Run, _ action: String) -> [[String: Any]] {
        let report = (try? run.json()) as? [String: Any]
        return (report?["items"] as? [[String: Any]] ?? []).filter { $0["action"] as? String == action }
    }

    /// What device `index` holds for service `service` (account `account`): its secret, or absent
    /// when `find` says so with status 44. Any other outcome (a crash, a keychain that no longer
    /// opens, a refused profile) is neither, so a test expecting either fails and says why.
    func secret(_ index: Int, service: String, account: String = "alice", profile: String = "app.plist") -> Held {
        let found = devices[index].run(["find", "-s", service, "-a", account, "--sync", "yes", "-w"], profile: profile)
        switch (found.status, found.signal) {
        case (0, nil): return .secret(found.stdout.trimmingCharacters(in: .newlines))
        case (44, nil): return .absent
        default:
            return .failed(
                "find on device \(index): status \(found.status), signal \(found.signal.map(String.init) ?? "none"): \(found.stderr)")
        }
    }

    /// The outcome of reading one item back: exactly one of these.
    enum Held: Equatable, ExpressibleByStringLiteral, CustomStringConvertible {
        case secret(String)
        case absent
        case failed(String)

        init(stringLiteral value: String) { self = .secret(value) }

        var description: String {
            switch self {
            case .secret(let value): "secret \(value)"
            case .absent: "absent (44)"
            case .failed(let why): why
            }
        }
    }

    /// Adds a synchronizable generic password on device `index`.
    @discardableResult
    func add(_ index: Int, service: String, account: String = "alice", secret: String, _ extra: [String] = []) -> Sandbox.Run {
        devices[index].add(["-s", service, "-a", account, "--sync", "yes"] + extra, secret: secret)
    }

    /// The record files of the cloud.
    var records: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: cloud + "/records")) ?? []).filter { $0.count == 32 }.sorted()
    }

    /// Every item device `index` holds, as "svce/acct=secret" lines, sorted.
    func contents(_ index: Int) -> [String] {
        let found = devices[index].run(["find", "--sync", "any", "--limit", "all", "--format", "json", "--return", "data,attributes"])
        let items = ((try? found.json()) as? [[String: Any]]) ?? []
        return items.map { "\($0["svce"] ?? "")/\($0["acct"] ?? "")=\($0["v_Data"] ?? "")" }.sorted()
    }
}
