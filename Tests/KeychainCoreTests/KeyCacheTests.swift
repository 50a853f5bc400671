import Foundation
import KeychainPlatform
import KeychainTestSupport
import Testing

@testable import KeychainCore

/// The key cache: a cached key is only a candidate, used when it opens the file's key check.
@Suite(.enabled(if: TestMachine.hasKeyring, "machine: keyring")) struct KeyCacheTests {
    /// A key id of this run alone: the user keyring is shared by every process of the user, so
    /// two checkouts testing at once must not find, replace or invalidate each other's keys.
    static func uniqueID() -> [UInt8] { withUnsafeBytes(of: UUID().uuid) { Array($0) } }

    @Test func aCachedKeyOpensTheKeychainAndAStaleOneIsInvalidated() throws {
        let temporary = try TemporaryKeychain()
        let id = try #require(temporary.keychain.identity)
        defer { KeyCache.invalidate(id) }
        let explicit = CredentialSource(useCache: true) { _ in .key(temporary.key) }

        _ = try KeyCache.store(
            temporary.key, for: id, path: "/tmp/keycache-test-\(getpid()).db", timeout: 60, idle: nil, ring: .auto, shareUID: false)
        #expect(try Keychain(path: temporary.path, source: explicit).usedCachedKey)

        // A key that does not open the file (the file was rekeyed, or another took its identity):
        // not used, invalidated, and the next source opens the file.
        _ = try KeyCache.store(
            SecretBytes.random(count: 32), for: id, path: "/tmp/keycache-test-\(getpid()).db", timeout: 60, idle: nil, ring: .auto,
            shareUID: false)
        #expect(KeyCache.lookup(id) != nil)
        let opened = try Keychain(path: temporary.path, source: explicit)
        #expect(!opened.usedCachedKey)
        #expect(KeyCache.lookup(id) == nil)

        // Without the cache, the cached key is not even looked at.
        _ = try KeyCache.store(
            temporary.key, for: id, path: "/tmp/keycache-test-\(getpid()).db", timeout: 60, idle: nil, ring: .auto, shareUID: false)
        #expect(try !Keychain(path: temporary.path, source: CredentialSource(useCache: false) { _ in .key(temporary.key) }).usedCachedKey)
    }

    /// A payload that is not keychainctl's (another program's key under the same name, a short
    /// one) is never used as a key: invalidated, not cached.
    @Test func aForeignPayloadIsInvalidated() throws {
        let id = Self.uniqueID()
        defer { KeyCache.invalidate(id) }
        for payload in [Array("not a key".utf8), Array(repeating: 0, count: 48), Array(repeating: 7, count: 80)] {
            _ = try KernelKeyring.add(
                KeyCache.description(for: id), payload: SecretBytes(copying: payload), ring: .user, timeout: 60, shareUID: false)
            #expect(KeyCache.lookup(id) == nil)
            #expect(KernelKeyring.search(KeyCache.description(for: id), in: .user) == nil)
        }
    }

    /// An absolute expiry in the payload is honoured even if the kernel's timer was re-armed past it.
    @Test func thePayloadsExpiryIsHonoured() throws {
        let id = Self.uniqueID()
        defer { KeyCache.invalidate(id) }
        let now = KeyCache.currentTime()
        _ = try KeyCache.store(
            SecretBytes.random(count: 32), for: id, path: "/tmp/keycache-test-\(getpid()).db", timeout: 10, idle: nil, ring: .auto,
            shareUID: false,
            now: now)
        #expect(KeyCache.lookup(id, now: now + 5) != nil)
        #expect(KeyCache.lookup(id, now: now + 11) == nil)
        #expect(KeyCache.lookup(id, now: now) == nil)
    }

    /// A key is tagged with its keychain's path: removing the keys of a path that is gone removes
    /// that path's key alone, another keychain's stays.
    @Test func removingByPathRemovesOnlyThatPathsKey() throws {
        let (mine, theirs) = (Self.uniqueID(), Self.uniqueID())
        defer {
            KeyCache.invalidate(mine)
            KeyCache.invalidate(theirs)
        }
        let folder = Folders.absolute("/tmp/keycache-\(getpid())")
        _ = try KeyCache.store(
            SecretBytes.random(count: 32), for: mine, path: folder + "/job-1/k.db", timeout: 60, idle: nil, ring: .user, shareUID: false)
        _ = try KeyCache.store(
            SecretBytes.random(count: 32), for: theirs, path: folder + "/job-2/k.db", timeout: 60, idle: nil, ring: .user, shareUID: false)
        #expect(KeyCache.invalidate(taggedWith: Folders.absolute(folder + "/job-3/k.db")) == 0)
        #expect(KeyCache.invalidate(taggedWith: Folders.absolute(folder + "/job-1/./k.db")) == 1)
        #expect(KeyCache.lookup(mine) == nil)
        #expect(KeyCache.lookup(theirs)?.pathTag == KeyCache.pathTag(folder + "/job-2/k.db"))
    }
}
