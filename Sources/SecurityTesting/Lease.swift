import Dispatch
import Foundation
package import KeychainCore
import Security

// Swift Testing tells tests apart; a build without it (the benchmark's static one) leases alone.
#if canImport(Testing)
    import Testing
#endif

extension SecurityTesting {
    /// The library for one test, while tests run in parallel (Swift Testing's default): the
    /// library serves one keychain per process, so a test that holds a lease has it to itself and
    /// the others wait their turn. Keep it in a stored property of the suite (or a local), and the
    /// library is reset and handed on when the test ends.
    ///
    /// ```swift
    /// @Suite struct LoginTests {
    ///     let keychain: SecurityTesting.Lease
    ///     init() throws { keychain = try SecurityTesting.Lease(inMemory: .accessGroups(["ABCDE12345.com.example.app"])) }
    /// }
    /// ```
    ///
    /// While a lease is held, a SecItem call from another test (one that holds none) reaches no
    /// keychain: it is errSecNotAvailable, `lastFailure` says why, and that test records an issue
    /// naming the cause. (The cases of one parameterized test are one test to Swift Testing, so a
    /// case that holds no lease is not told from one that does.)
    public final class Lease: @unchecked Sendable {
        /// One turn at a time, handed from whichever thread ends the test to the next in line.
        private static let turn = Turn()

        /// The test that holds the lease, when a test made it.
        private let holder: AnyHashable?

        /// A new in-memory keychain (`useInMemoryKeychain`), once the library is free. Blocks its
        /// thread while it waits: in a target with async tests, prefer `try await Lease(…)`.
        public convenience init(inMemory entitlements: Entitlements) throws {
            Self.turn.wait()
            try self.init { try SecurityTesting.useInMemoryKeychain(entitlements) }
        }

        /// The keychain at `path` (`useKeychain`), once the library is free; blocks while it waits.
        public convenience init(keychainAt path: String, keyFile: String, _ entitlements: Entitlements) throws {
            Self.turn.wait()
            try self.init { try SecurityTesting.useKeychain(at: path, keyFile: keyFile, entitlements) }
        }

        /// A new in-memory keychain, once the library is free, waiting without holding a thread:
        /// `init() async throws { keychain = try await SecurityTesting.Lease(inMemory: …) }`.
        public convenience init(inMemory entitlements: Entitlements) async throws {
            await Self.turn.take()
            try self.init { try SecurityTesting.useInMemoryKeychain(entitlements) }
        }

        /// The keychain at `path`, once the library is free, waiting without holding a thread.
        public convenience init(keychainAt path: String, keyFile: String, _ entitlements: Entitlements) async throws {
            await Self.turn.take()
            try self.init { try SecurityTesting.useKeychain(at: path, keyFile: keyFile, entitlements) }
        }

        /// Holds the turn its caller took.
        private init(_ use: () throws -> Void) throws {
            #if canImport(Testing)
                let test = Test.current
                holder = test.map { AnyHashable($0.id) }
            #else
                holder = nil
            #endif
            do { try use() } catch {
                Self.turn.release()
                throw error
            }
            #if canImport(Testing)
                SecItemEngine.shared.install(Self.gate(holder: test))
            #endif
        }

        deinit {
            SecurityTesting.reset()
            #if canImport(Testing)
                SecItemEngine.shared.install(Self.gate(holder: nil))
            #endif
            if let holder { SecItemEngine.shared.forgetFailures(of: holder) }
            Self.turn.release()
        }

        #if canImport(Testing)
            /// Tells tests apart by Swift Testing's current test, and turns away another test's calls
            /// while `holder` holds the lease.
            private static func gate(holder: Test?) -> SecItemEngine.Gate {
                SecItemEngine.Gate(
                    caller: { Test.current.map { AnyHashable($0.id) } },
                    refusal: {
                        guard let holder, let current = Test.current, current.id != holder.id else { return nil }
                        let cause =
                            "'\(current.name)' called SecItem without a SecurityTesting.Lease while '\(holder.name)' holds one: "
                            + "the call would have used that test's keychain, so it reached none. Hold a Lease in every test that "
                            + "calls SecItem while tests run in parallel (docs/LIBRARY.md)."
                        Issue.record(Comment(rawValue: cause))
                        return cause
                    })
            }
        #endif
    }
}

/// The lease's one turn: taken at once when free, else by the first waiter in line when released,
/// whether it waits blocking its thread (`wait`) or suspended (`take`).
private final class Turn: @unchecked Sendable {
    private enum Waiter {
        case thread(DispatchSemaphore)
        case task(CheckedContinuation<Void, Never>)
    }

    private let lock = NSLock()
    private var held = false
    private var line: [Waiter] = []

    func wait() {
        let semaphore: DispatchSemaphore? = lock.withLock {
            guard held else {
                held = true
                return nil
            }
            let semaphore = DispatchSemaphore(value: 0)
            line.append(.thread(semaphore))
            return semaphore
        }
        semaphore?.wait()
    }

    func take() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now: Bool = lock.withLock {
                guard held else {
                    held = true
                    return true
                }
                line.append(.task(continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Hands the turn to the first in line, or frees it.
    func release() {
        let next: Waiter? = lock.withLock {
            guard !line.isEmpty else {
                held = false
                return nil
            }
            return line.removeFirst()
        }
        switch next {
        case .thread(let semaphore): semaphore.signal()
        case .task(let continuation): continuation.resume()
        case nil: break
        }
    }
}
