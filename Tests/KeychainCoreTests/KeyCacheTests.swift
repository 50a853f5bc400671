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

    /// A slot of this run alone, for a file at `path` (default: a name of this run's).
    static func uniqueSlot(path: String = "/tmp/keycache-test-\(getpid()).db") -> KeyCache.Slot {
        KeyCache.Slot(id: uniqueID(), path: path)
    }

    @Test func aCachedKeyOpensTheKeychainAndAStaleOneIsInvalidated() throws {
        let temporary = try TemporaryKeychain()
        let slot = KeyCache.Slot(id: try #require(temporary.keychain.identity), path: temporary.path)
        defer { KeyCache.invalidate(slot) }
        let explicit = CredentialSource(useCache: true) { _ in .key(temporary.key) }

        _ = try KeyCache.store(temporary.key, in: slot, timeout: 60, idle: nil, ring: .auto, shareUID: false)
        #expect(try Keychain(path: temporary.path, source: explicit).usedCachedKey)

        // A key that does not open the file (the file was rekeyed, or another took its identity):
        // not used, invalidated, and the next source opens the file.
        _ = try KeyCache.store(SecretBytes.random(count: 32), in: slot, timeout: 60, idle: nil, ring: .auto, shareUID: false)
        #expect(KeyCache.lookup(slot) != nil)
        let opened = try Keychain(path: temporary.path, source: explicit)
        #expect(!opened.usedCachedKey)
        #expect(KeyCache.lookup(slot) == nil)

        // Without the cache, the cached key is not even looked at.
        _ = try KeyCache.store(temporary.key, in: slot, timeout: 60, idle: nil, ring: .auto, shareUID: false)
        #expect(try !Keychain(path: temporary.path, source: CredentialSource(useCache: false) { _ in .key(temporary.key) }).usedCachedKey)
    }

    /// A payload that is not keychainctl's (another program's key under the same name, a short
    /// one, one of an earlier payload format) is never used as a key: invalidated, not cached.
    @Test func aForeignPayloadIsInvalidated() throws {
        let slot = Self.uniqueSlot()
        defer { KeyCache.invalidate(slot) }
        let earlier = Array("kck2".utf8) + [UInt8](repeating: 1, count: 32 + 12 + 32)
        for payload in [Array("not a key".utf8), Array(repeating: 0, count: 48), Array(repeating: 7, count: 80), earlier] {
            _ = try KernelKeyring.add(slot.description, payload: SecretBytes(copying: payload), ring: .user, timeout: 60, shareUID: false)
            #expect(KeyCache.lookup(slot) == nil)
            #expect(KernelKeyring.search(slot.description, in: .user) == nil)
        }
    }

    /// An absolute expiry in the payload is honoured even if the kernel's timer was re-armed past it.
    @Test func thePayloadsExpiryIsHonoured() throws {
        let slot = Self.uniqueSlot()
        defer { KeyCache.invalidate(slot) }
        let now = KeyCache.currentTime()
        _ = try KeyCache.store(SecretBytes.random(count: 32), in: slot, timeout: 10, idle: nil, ring: .auto, shareUID: false, now: now)
        #expect(KeyCache.lookup(slot, now: now + 5) != nil)
        #expect(KeyCache.lookup(slot, now: now + 11) == nil)
        #expect(KeyCache.lookup(slot, now: now) == nil)
    }

    /// A key is tagged with its keychain's path: removing the keys of a path that is gone removes
    /// that path's key alone, another keychain's stays.
    @Test func removingByPathRemovesOnlyThatPathsKey() throws {
        let folder = Folders.absolute("/tmp/keycache-\(getpid())")
        let (mine, theirs) = (Self.uniqueSlot(path: folder + "/job-1/k.db"), Self.uniqueSlot(path: folder + "/job-2/k.db"))
        defer {
            KeyCache.invalidate(mine)
            KeyCache.invalidate(theirs)
        }
        _ = try KeyCache.store(SecretBytes.random(count: 32), in: mine, timeout: 60, idle: nil, ring: .user, shareUID: false)
        _ = try KeyCache.store(SecretBytes.random(count: 32), in: theirs, timeout: 60, idle: nil, ring: .user, shareUID: false)
        #expect(KeyCache.invalidate(taggedLike: KeyCache.Slot(id: [], path: folder + "/job-3/k.db")) == 0)
        #expect(KeyCache.invalidate(taggedLike: KeyCache.Slot(id: [], path: folder + "/job-1/./k.db")) == 1)
        #expect(KeyCache.lookup(mine) == nil)
        #expect(KeyCache.lookup(theirs)?.pathTags.first == KeyCache.pathTag(folder + "/job-2/k.db"))
    }

    /// Copies of one keychain (one identity) at two paths are cached apart: storing or removing
    /// one leaves the other.
    @Test func copiesOfOneKeychainAreCachedApart() throws {
        let id = Self.uniqueID()
        let (first, second) = (
            KeyCache.Slot(id: id, path: "/tmp/job-a-\(getpid())/k.db"), KeyCache.Slot(id: id, path: "/tmp/job-b-\(getpid())/k.db")
        )
        defer {
            KeyCache.invalidate(first)
            KeyCache.invalidate(second)
        }
        #expect(first.description != second.description)
        let (keyA, keyB) = (SecretBytes.random(count: 32), SecretBytes.random(count: 32))
        _ = try KeyCache.store(keyA, in: first, timeout: 60, idle: nil, ring: .user, shareUID: false)
        _ = try KeyCache.store(keyB, in: second, timeout: 60, idle: nil, ring: .user, shareUID: false)
        #expect(KeyCache.lookup(first)?.key.equals(keyA) == true && KeyCache.lookup(second)?.key.equals(keyB) == true)
        #expect(KeyCache.invalidate(first))
        #expect(KeyCache.lookup(first) == nil && KeyCache.lookup(second)?.key.equals(keyB) == true)
    }
}
