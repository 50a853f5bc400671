import Dispatch
import KeychainCore
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
        /// One turn at a time, released from whichever thread ends the test.
        private static let turn = DispatchSemaphore(value: 1)

        /// The test that holds the lease, when a test made it.
        private let holder: AnyHashable?

        /// A new in-memory keychain (`useInMemoryKeychain`), once the library is free.
        public convenience init(inMemory entitlements: Entitlements) throws {
            try self.init { try SecurityTesting.useInMemoryKeychain(entitlements) }
        }

        /// The keychain at `path` (`useKeychain`), once the library is free.
        public convenience init(keychainAt path: String, keyFile: String, _ entitlements: Entitlements) throws {
            try self.init { try SecurityTesting.useKeychain(at: path, keyFile: keyFile, entitlements) }
        }

        private init(_ use: () throws -> Void) throws {
            Self.turn.wait()
            #if canImport(Testing)
                let test = Test.current
                holder = test.map { AnyHashable($0.id) }
            #else
                holder = nil
            #endif
            do { try use() } catch {
                Self.turn.signal()
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
            Self.turn.signal()
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
