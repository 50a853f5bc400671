import Foundation
import KeychainTestSupport
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

    /// The version-1 store of `Fixtures/CloudStores` and its two devices (mac, then ipad), copied.
    init(version1Fixture: ()) throws {
        let fixture = PackagePaths.fixtures + "/CloudStores"
        home = try Sandbox(initialize: false)
        devices = try ["mac", "ipad"].map { name in
            let device = try Sandbox(initialize: false)
            try FileManager.default.createDirectory(atPath: device.folder + "/data", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: "\(fixture)/\(name).db", toPath: device.keychain)
            try FileManager.default.copyItem(atPath: "\(fixture)/\(name).key", toPath: device.keyFile)
            chmod(device.keyFile, 0o600)
            return device
        }
        try FileManager.default.copyItem(atPath: fixture + "/store-v1", toPath: cloud)
        try FileManager.default.copyItem(atPath: fixture + "/account.key", toPath: accountKey)
        chmod(accountKey, 0o600)
    }

    /// Runs `sync` on device `index` (JSON report), with any extra arguments, as `device<index>`.
    @discardableResult
    func sync(_ index: Int, _ extra: [String] = [], cloud: String? = nil, accountKey: String? = nil) -> Sandbox.Run {
        devices[index].run(
            ["sync", "--cloud", cloud ?? self.cloud, "--format", "json", "--device-name", "device\(index)"] + extra, profile: nil,
            environment: ["KEYCHAINCTL_ACCOUNT_KEY_FILE": accountKey ?? self.accountKey])
    }

    /// Runs `keychainctl cloud ARGUMENTS --cloud CLOUD` with the account key.
    @discardableResult
    func cloudCommand(_ arguments: [String], accountKey: String? = nil) -> Sandbox.Run {
        home.run(
            ["cloud"] + arguments + ["--cloud", cloud], profile: nil,
            environment: ["KEYCHAINCTL_ACCOUNT_KEY_FILE": accountKey ?? self.accountKey])
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

    /// The records the store's head lists as items (not deletions), by file name.
    var liveRecords: [String] { head["records"] as? [String] ?? ["(no head)"] }

    /// The store's head as `cloud head --format json` prints it.
    var head: [String: Any] { head(of: cloud) }

    /// The head of the store at `folder`, as `cloud head --format json` prints it.
    func head(of folder: String) -> [String: Any] {
        let run = home.run(
            ["cloud", "head", "--cloud", folder, "--format", "json"], profile: nil,
            environment: ["KEYCHAINCTL_ACCOUNT_KEY_FILE": accountKey])
        return ((try? run.json()) as? [String: Any]) ?? [:]
    }

    /// The store's devices by name, from `cloud devices --format json`: their identity (hex) and
    /// whether they are revoked.
    var deviceList: [String: (id: String, revoked: Bool)] {
        let listed = ((try? cloudCommand(["devices", "--format", "json"]).json()) as? [[String: Any]]) ?? []
        var out: [String: (id: String, revoked: Bool)] = [:]
        for device in listed {
            if let name = device["name"] as? String { out[name] = (device["id"] as? String ?? "", device["revoked"] as? Bool ?? false) }
        }
        return out
    }

    /// The record files of the cloud (items and deletions).
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
