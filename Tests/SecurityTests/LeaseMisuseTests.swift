import Foundation
import Security
import SecurityTesting
import Testing

// A test that calls SecItem without a Lease while another test holds one. The two run in a child
// run of this test binary with nothing else in it (`LeaseProbe`), so neither waits on the other
// suites' leases; the parent reads the child's verdict.

/// What the two probe tests tell each other.
private final class ProbeSignals: @unchecked Sendable {
    static let shared = ProbeSignals()
    private let lock = NSLock()
    private var held = false
    private var called = false

    func holding() { lock.withLock { held = true } }
    func calledWithoutLease() { lock.withLock { called = true } }
    var isHeld: Bool { lock.withLock { held } }
    var wasCalled: Bool { lock.withLock { called } }

    /// Waits (suspended, not blocking a thread) until `condition` holds; false after 60 s.
    static func wait(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<600 {
            if condition() { return true }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        return false
    }
}

@Suite(.enabled(if: ProcessInfo.processInfo.environment["KEYCHAINCTL_LEASE_PROBE"] != nil, "machine: lease-probe-run"))
struct LeaseProbe {
    /// Holds the lease, fails a find of its own, and after the other test's call still reads its
    /// own failure in lastFailure, and its keychain still holds only its item.
    @Test func holdsTheLease() async throws {
        let keychain = try await SecurityTesting.Lease(inMemory: .accessGroups(["SKMME9E2Y8.com.example.app"]))
        #expect(addPassword("holder", "mine") == errSecSuccess)
        #expect(readPassword("absent").0 == errSecItemNotFound)
        let own = SecurityTesting.lastFailure
        #expect(own?.contains("absent") == true || own?.contains("no ") == true, "\(own ?? "nil")")
        ProbeSignals.shared.holding()
        #expect(try await ProbeSignals.wait { ProbeSignals.shared.wasCalled })
        #expect(SecurityTesting.lastFailure == own)
        #expect(readPassword("intruder").0 == errSecItemNotFound)
        withExtendedLifetime(keychain) {}
    }

    /// Holds no lease: its add reaches no keychain, says why, and records an issue naming the cause.
    @Test func callsWithoutALease() async throws {
        #expect(try await ProbeSignals.wait { ProbeSignals.shared.isHeld })
        var status = errSecSuccess
        withKnownIssue("a SecItem call without a lease while another test holds one") {
            status = addPassword("intruder", "theirs")
        }
        ProbeSignals.shared.calledWithoutLease()
        #expect(status == errSecNotAvailable)
        #expect(SecurityTesting.lastFailure?.contains("without a SecurityTesting.Lease while 'holdsTheLease()' holds one") == true)
    }
}

@Suite struct LeaseMisuseTests {
    /// The probe passes in a run of its own (so its known issue was recorded, and its calls were
    /// refused, not sent into the held keychain), and says the cause in its output.
    @Test func aCallWithoutALeaseIsReportedNotRedirected() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["KEYCHAINCTL_LEASE_PROBE"] = "1"
        let run = try runChild(
            CommandLine.arguments[0], ["--testing-library", "swift-testing", "--filter", "LeaseProbe"], environment: environment,
            timeout: 120)
        let printed = String(decoding: run.output, as: UTF8.self)
        #expect(run.status == 0, "\(printed)")
        #expect(printed.contains("2 tests") && printed.contains("known issue"), "\(printed)")
    }
}

/// `try await Lease(…)` waits without holding a thread: more tasks than the cooperative pool has
/// threads each wait for the lease and hold it across a suspension. Had the waiters blocked their
/// threads (as the synchronous initializer does), the holder could never resume, and this test
/// would hang until its time limit (minutes: its tasks queue behind every other suite's lease).
@Suite struct LeaseWaitTests {
    @Test(.timeLimit(.minutes(5))) func waitersSuspendRatherThanBlockTheirThreads() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<(ProcessInfo.processInfo.activeProcessorCount * 4) {
                group.addTask {
                    let lease = try await SecurityTesting.Lease(inMemory: .accessGroups(["SKMME9E2Y8.com.example.app"]))
                    try await Task.sleep(for: .milliseconds(5))
                    #expect(addPassword("waiter-\(index)", "turn") == errSecSuccess)
                    #expect(readPassword("waiter-\(index - 1)").0 == errSecItemNotFound, "each lease starts empty")
                    withExtendedLifetime(lease) {}
                }
            }
            try await group.waitForAll()
        }
    }
}
