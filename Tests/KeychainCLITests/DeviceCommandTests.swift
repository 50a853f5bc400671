import Foundation
import KeychainTestSupport
import Testing

/// `keychainctl device` and `--device-state` through the real binary (docs/FIDELITY.md).
@Suite struct DeviceCommandTests {
    /// A keychain holding a when-unlocked item (`widget-token`) and an after-first-unlock one.
    static func sandbox() throws -> Sandbox {
        let sandbox = try Sandbox()
        #expect(sandbox.run(["add", "-s", "api", "-a", "ak"], stdin: Data("when-unlocked".utf8)).status == 0)
        #expect(sandbox.run(["add", "-s", "api", "-a", "ck", "--accessible", "ck"], stdin: Data("after-first".utf8)).status == 0)
        return sandbox
    }

    @Test func statusInTextAndJSON() throws {
        let sandbox = try Sandbox()
        let text = sandbox.run(["device"], profile: nil)
        #expect(text.status == 0 && text.stdout == "state: unlocked\npasscode: set\nbiometry: enrolled\n", "\(text.stderr)")
        let json = try sandbox.run(["device", "status", "--format", "json"], profile: nil).json() as? [String: Any]
        #expect(json?["state"] as? String == "unlocked" && json?["passcode"] as? Bool == true && json?["biometry"] as? String == "enrolled")
    }

    /// `groups` shows the device when a key file opens the keychain: the state and the classes it
    /// makes unavailable; without a keychain it shows none.
    @Test func groupsShowsTheDevice() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.run(["groups"]).stdout.hasSuffix("device: unlocked, passcode set; every accessibility class is available\n"))
        #expect(sandbox.run(["device", "lock"], profile: nil).status == 0)
        let text = sandbox.run(["groups"], profile: "widget.plist").stdout
        #expect(text.contains("device: locked, passcode set; unavailable: when-unlocked (ak), when-passcode-set-this-device-only (akpu)"))
        let json = try sandbox.run(["groups", "--format", "json"]).json() as? [String: Any]
        let device = json?["device"] as? [String: Any]
        #expect(device?["state"] as? String == "locked" && device?["unavailable"] as? [String] == ["ak", "akpu", "aku"])
        #expect(!sandbox.run(["groups"], environment: ["KEYCHAINCTL_KEYCHAIN": sandbox.folder + "/none.db"]).stdout.contains("device:"))
    }

    /// The widget story: locked, a when-unlocked item is exit 36 with the fix in the hint; an
    /// after-first-unlock one still reads; a reboot locks that too until the next unlock.
    @Test func lockRebootAndUnlock() throws {
        let sandbox = try Self.sandbox()
        #expect(sandbox.run(["device", "lock"], profile: nil).stdout.hasPrefix("state: locked\n"))
        let locked = sandbox.run(["find", "-s", "api", "-a", "ak", "-w"])
        #expect(locked.status == 36 && locked.stdout.isEmpty)
        #expect(
            locked.stderr.contains("-25308") && locked.stderr.contains("when-unlocked (ak)")
                && locked.stderr.contains("after-first-unlock (ck)"))
        #expect(sandbox.run(["find", "-s", "api", "-a", "ck", "-w"]).stdout == "after-first")
        // No partial result: the whole find fails, in text and JSON.
        let all = sandbox.run(["find", "-s", "api", "--limit", "all", "--format", "json"])
        #expect(all.status == 36 && all.stdout.isEmpty)
        #expect(sandbox.run(["add", "-s", "new"], stdin: Data("x".utf8)).status == 36)
        #expect(sandbox.run(["update", "-s", "api", "-a", "ak", "--set-label", "x"]).status == 36)
        let migrate = sandbox.run(["migrate-group", "--from", "SKMME9E2Y8.com.example.app", "--to", "SKMME9E2Y8.com.example.shared"])
        #expect(migrate.status == 36 && migrate.stdout.isEmpty, "\(migrate.stderr)")
        #expect(sandbox.run(["device", "reboot"], profile: nil).status == 0)
        #expect(sandbox.run(["find", "-s", "api", "-a", "ck"]).status == 36)
        #expect(sandbox.run(["device", "unlock"], profile: nil).status == 0)
        #expect(sandbox.run(["find", "-s", "api", "-a", "ak", "-w"]).stdout == "when-unlocked")
        // Nothing moved while locked.
        #expect(sandbox.run(["find", "-s", "api", "-a", "ck", "-g", "SKMME9E2Y8.com.example.app"]).status == 0)
    }

    /// `--device-state` and KEYCHAINCTL_DEVICE_STATE run one call in a state and store nothing.
    @Test func oneCallInAState() throws {
        let sandbox = try Self.sandbox()
        #expect(sandbox.run(["find", "-s", "api", "-a", "ak", "--device-state", "locked"]).status == 36)
        #expect(sandbox.run(["find", "-s", "api", "-a", "ck", "--device-state", "before-first-unlock"]).status == 36)
        #expect(sandbox.run(["find", "-s", "api", "-a", "ak"], environment: ["KEYCHAINCTL_DEVICE_STATE": "locked"]).status == 36)
        #expect(sandbox.run(["find", "-s", "api", "-a", "ak", "-w"]).stdout == "when-unlocked")
        // A stored lock, overridden for one call.
        #expect(sandbox.run(["device", "lock"], profile: nil).status == 0)
        #expect(sandbox.run(["find", "-s", "api", "-a", "ak", "-w", "--device-state", "unlocked"]).stdout == "when-unlocked")
        #expect(sandbox.run(["find", "-s", "api", "-a", "ak"]).status == 36)
        // status shows the call's state and says so; a change ignores the variable.
        let status = sandbox.run(["device"], profile: nil, environment: ["KEYCHAINCTL_DEVICE_STATE": "unlocked"]).stdout
        #expect(status.hasPrefix("state: unlocked\n") && status.contains("stored: locked"))
        #expect(sandbox.run(["device", "unlock"], profile: nil, environment: ["KEYCHAINCTL_DEVICE_STATE": "locked"]).status == 0)
        #expect(sandbox.run(["device"], profile: nil).stdout.hasPrefix("state: unlocked\n"))
    }

    /// Bad words are usage errors (64) naming the choices; a bad environment value is 78; nothing
    /// changes.
    @Test func badInputChangesNothing() throws {
        let sandbox = try Sandbox()
        let state = sandbox.run(["find", "-s", "x", "--device-state", "asleep"])
        #expect(state.status == 64 && state.stderr.contains("unlocked, locked or before-first-unlock"))
        #expect(sandbox.run(["find", "-s", "x"], environment: ["KEYCHAINCTL_DEVICE_STATE": "asleep"]).status == 78)
        let action = sandbox.run(["device", "hunter2"], profile: nil)
        #expect(action.status == 64 && !action.stderr.contains("hunter2") && action.stderr.contains("passcode remove"))
        #expect(sandbox.run(["device", "passcode"], profile: nil).status == 64)
        #expect(sandbox.run(["device", "lock", "--device-state", "locked"], profile: nil).status == 64)
        #expect(sandbox.run(["device"], profile: nil).stdout.hasPrefix("state: unlocked\n"))
    }

    /// Removing the passcode asks first (no terminal and no --yes: exit 36, nothing changed), then
    /// deletes every akpu item and reports how many; akpu adds fail until a passcode is set.
    @Test func passcodeRemovalAsksThenDeletesTheAkpuItems() throws {
        let sandbox = try Self.sandbox()
        #expect(sandbox.run(["add", "-s", "bank", "--accessible", "akpu"], stdin: Data("pin".utf8)).status == 0)
        #expect(sandbox.run(["device", "passcode", "remove"], profile: nil).status == 36)
        #expect(sandbox.run(["find", "-s", "bank", "-w"]).stdout == "pin")
        let removed = try sandbox.run(["device", "passcode", "remove", "--yes", "--format", "json"], profile: nil).json() as? [String: Any]
        #expect(removed?["passcode"] as? Bool == false && removed?["invalidated"] as? Int == 1)
        #expect(sandbox.run(["find", "-s", "bank"]).status == 44)
        #expect(sandbox.run(["add", "-s", "bank", "--accessible", "akpu"], stdin: Data("pin".utf8)).status == 51)
        // No passcode: the lock protects nothing.
        #expect(sandbox.run(["device", "lock"], profile: nil).stdout.contains("no passcode"))
        #expect(sandbox.run(["find", "-s", "api", "-a", "ak", "-w"]).stdout == "when-unlocked")
        #expect(sandbox.run(["device", "passcode", "set"], profile: nil).status == 0)
        #expect(sandbox.run(["add", "-s", "bank", "--accessible", "akpu"], stdin: Data("pin2".utf8)).status == 0)
        #expect(sandbox.run(["verify"], profile: nil).status == 0)
    }

    /// A passcode removal or a biometry change killed at any moment leaves all or nothing: every
    /// item it invalidates is there, or none is.
    static let invalidations: [(change: [String], accessibility: String?, accessControl: String?)] = [
        (["device", "passcode", "remove", "--yes"], "akpu", nil), (["device", "biometry", "change", "--yes"], nil, "biometry-current-set"),
    ]

    @Test(.enabled(if: CrashCheck.canWatch, "machine: root"), arguments: invalidations)
    func killedInvalidationsLeaveAllOrNothing(_ change: [String], _ accessibility: String?, _ accessControl: String?) throws {
        let sandbox = try Sandbox()
        let total = 300
        #expect(sandbox.run(["device", "passcode", "set"], profile: nil).status == 0)
        try sandbox.fill(count: total, group: "SKMME9E2Y8.com.example.app", accessibility: accessibility, accessControl: accessControl)
        let check = CrashCheck(
            sandbox: sandbox, arguments: change,
            state: {
                let found = sandbox.run(
                    [
                        "find", "-g", "SKMME9E2Y8.com.example.app", "--limit", "all", "--auth", "approve", "--format", "json",
                        "--profile", Sandbox.profiles + "/app.plist",
                    ], profile: nil)
                let count = (try? found.json() as? [Any])?.count ?? 0
                return "status \(found.status) signal \(found.signal.map(String.init) ?? "none"): \(count) items"
            })
        let (_, old, new) = try check.run()
        #expect(old == "status 0 signal none: \(total) items")
        #expect(new == "status 44 signal none: 0 items")
    }
}
