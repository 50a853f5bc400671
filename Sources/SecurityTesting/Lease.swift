import Dispatch

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
    public final class Lease: @unchecked Sendable {
        /// One turn at a time, released from whichever thread ends the test.
        private static let turn = DispatchSemaphore(value: 1)

        /// A new in-memory keychain (`useInMemoryKeychain`), once the library is free.
        public init(inMemory entitlements: Entitlements) throws {
            Self.turn.wait()
            do { try SecurityTesting.useInMemoryKeychain(entitlements) } catch {
                Self.turn.signal()
                throw error
            }
        }

        /// The keychain at `path` (`useKeychain`), once the library is free.
        public init(keychainAt path: String, keyFile: String, _ entitlements: Entitlements) throws {
            Self.turn.wait()
            do { try SecurityTesting.useKeychain(at: path, keyFile: keyFile, entitlements) } catch {
                Self.turn.signal()
                throw error
            }
        }

        deinit {
            SecurityTesting.reset()
            Self.turn.signal()
        }
    }
}
