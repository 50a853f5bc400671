import Glibc
import KeychainPlatform

/// A keychain's key cached in the kernel keyring by `unlock`, so that a passphrase keychain costs
/// later calls one keyring read instead of an Argon2id derivation (docs/CI.md).
///
/// One "user" key per keychain, named `keychainctl:v1:<hex of the file's identity>` (the random id
/// `init` stores: a moved file keeps its cache, a rekeyed one's key check refuses the stale key).
/// Its payload is the 32-byte keychain key, the absolute expiry, the idle timeout and the SHA-256
/// of the keychain's absolute path when it was unlocked (its tag: what `lock` of a keychain file
/// that is gone removes, and nothing else); the kernel's own expiry is the sooner of the two,
/// re-armed on each use when an idle timeout is set, so a key never outlives either. A cached key
/// is only ever a candidate: the caller tries it against the file's key check and invalidates it
/// when it does not open.
package enum KeyCache {
    /// What every cached key's description starts with.
    package static let prefix = "keychainctl:v1:"
    private static let magic = Array("kck2".utf8)
    private static let tagBytes = 32
    private static let payloadBytes = 4 + KeyRing.keyBytes + 8 + 4 + tagBytes

    /// A cached key as found.
    package struct Entry {
        package let key: SecretBytes
        /// Seconds since 1970 at which it expires for good; `nil`: at `lock` or logout.
        package let expires: UInt64?
        /// The idle timeout in seconds; `nil`: none.
        package let idle: UInt32?
        package let ring: KernelKeyring.Ring
        package let serial: Int32
        /// The SHA-256 of the keychain's absolute path when it was unlocked.
        package let pathTag: [UInt8]
    }

    /// Where `unlock` put a key.
    package struct Placement: Sendable {
        package let ring: KernelKeyring.Ring
        package let serial: Int32
        package let expires: UInt64?
    }

    /// How `unlock` chooses a keyring.
    package enum RingChoice: String, Sendable, CaseIterable {
        case auto, session, user
    }

    /// The tag of a key cached for the keychain at `absolutePath` (as `Folders.absolute` makes
    /// it, resolved as far as it exists, so the same string names it after the file is gone).
    package static func pathTag(_ absolutePath: String) -> [UInt8] {
        SecretBytes(copying: Array(absolutePath.utf8)).sha256
    }

    /// The description of the key cached for the keychain whose identity is `id`.
    package static func description(for id: [UInt8]) -> String {
        prefix + Hex.lowercase(id)
    }

    /// The key cached for keychain `id`, when one is reachable, owned by this user and has not
    /// expired; each use of a key with an idle timeout re-arms it (never past its absolute expiry).
    package static func lookup(_ id: [UInt8], now: UInt64 = currentTime()) -> Entry? {
        let name = description(for: id)
        for ring in KernelKeyring.Ring.allCases {
            guard let serial = KernelKeyring.search(name, in: ring, ownOnly: true) else { continue }
            guard let payload = KernelKeyring.read(serial, length: payloadBytes), let entry = decode(payload, ring: ring, serial: serial)
            else {
                KernelKeyring.invalidate(serial)
                continue
            }
            if let expires = entry.expires, expires <= now {
                KernelKeyring.invalidate(serial)
                continue
            }
            if let idle = entry.idle { KernelKeyring.setTimeout(serial, seconds: remaining(idle: idle, expires: entry.expires, now: now)) }
            return entry
        }
        return nil
    }

    /// Caches `key` for keychain `id` at `path` (absolute), replacing what was cached for it: for `timeout`
    /// seconds (`nil`: until `lock`), and with `idle`, only while it keeps being used at most that
    /// far apart.
    package static func store(
        _ key: SecretBytes, for id: [UInt8], path: String, timeout: UInt32?, idle: UInt32?, ring choice: RingChoice, shareUID: Bool,
        now: UInt64 = currentTime()
    ) throws(KeyCacheError) -> Placement {
        let sessionOwner: uid_t?
        do { sessionOwner = try KernelKeyring.sessionKeyringOwner() } catch { throw .keyring(error) }
        let ownSession = sessionOwner == geteuid()
        // Inherited from another user: its processes possess the keyring and everything in it, so
        // neither `auto` nor `session` puts a key there; `--keyring user` is the caller's own choice.
        if let sessionOwner, !ownSession, choice != .user { throw .foreignSessionKeyring(owner: sessionOwner) }
        let ring: KernelKeyring.Ring
        switch choice {
        case .auto: ring = ownSession ? .session : .user
        case .user: ring = .user
        case .session:
            guard ownSession else { throw .noSessionKeyring }
            ring = .session
        }
        let expires = timeout.map { now + UInt64($0) }
        let payload = SecretBytes(count: 0)
        magic.withUnsafeBytes { payload.append($0) }
        key.withUnsafeBytes { payload.append($0) }
        withUnsafeBytes(of: (expires ?? 0).bigEndian) { payload.append($0) }
        withUnsafeBytes(of: (idle ?? 0).bigEndian) { payload.append($0) }
        pathTag(path).withUnsafeBytes { payload.append($0) }
        // Whatever was cached for this keychain elsewhere goes first: one keychain, one cached key.
        invalidate(id)
        let serial: Int32
        do {
            serial = try KernelKeyring.add(
                description(for: id), payload: payload, ring: ring,
                timeout: idle.map { remaining(idle: $0, expires: expires, now: now) } ?? timeout ?? 0, shareUID: shareUID)
        } catch { throw .keyring(error) }
        return Placement(ring: ring, serial: serial, expires: expires)
    }

    /// Invalidates every key cached for keychain `id`; whether there was one.
    @discardableResult
    package static func invalidate(_ id: [UInt8]) -> Bool {
        var found = false
        for ring in KernelKeyring.Ring.allCases {
            while let serial = KernelKeyring.search(description(for: id), in: ring), KernelKeyring.invalidate(serial) { found = true }
        }
        return found
    }

    /// Invalidates every keychainctl key in either keyring that was cached for the keychain at
    /// `path` (absolute; its tag), and no other; how many there were. What `lock` removes when the file is
    /// gone and its identity cannot be read: another keychain's key, another job's, stays.
    package static func invalidate(taggedWith path: String) -> Int {
        let tag = pathTag(path)
        var count = 0
        for ring in KernelKeyring.Ring.allCases {
            for key in KernelKeyring.keys(in: ring, prefix: prefix) {
                guard let payload = KernelKeyring.read(key.serial, length: payloadBytes),
                    let entry = decode(payload, ring: ring, serial: key.serial), entry.pathTag == tag
                else { continue }
                if KernelKeyring.invalidate(key.serial) { count += 1 }
            }
        }
        return count
    }

    /// Invalidates every keychainctl key in `rings`; how many there were.
    package static func invalidateAll(in rings: [KernelKeyring.Ring] = KernelKeyring.Ring.allCases) -> Int {
        var count = 0
        for ring in rings {
            for key in KernelKeyring.keys(in: ring, prefix: prefix) where KernelKeyring.invalidate(key.serial) { count += 1 }
        }
        return count
    }

    /// Seconds since 1970.
    package static func currentTime() -> UInt64 { UInt64(max(0, time(nil))) }

    /// The kernel expiry for a key used now: its idle timeout, cut short by its absolute expiry.
    private static func remaining(idle: UInt32, expires: UInt64?, now: UInt64) -> UInt32 {
        guard let expires else { return idle }
        return UInt32(min(UInt64(idle), expires > now ? expires - now : 1))
    }

    package static func decode(_ payload: SecretBytes, ring: KernelKeyring.Ring, serial: Int32) -> Entry? {
        payload.withUnsafeBytes { bytes -> Entry? in
            guard bytes.count == payloadBytes, Array(bytes.prefix(4)) == magic else { return nil }
            let key = SecretBytes(count: 0)
            key.append(UnsafeRawBufferPointer(rebasing: bytes[4..<(4 + KeyRing.keyBytes)]))
            let expires = ByteOrder.bigEndian(bytes[(4 + KeyRing.keyBytes)..<(12 + KeyRing.keyBytes)])
            let idle = UInt32(truncatingIfNeeded: ByteOrder.bigEndian(bytes[(12 + KeyRing.keyBytes)..<(16 + KeyRing.keyBytes)]))
            return Entry(
                key: key, expires: expires == 0 ? nil : expires, idle: idle == 0 ? nil : idle, ring: ring, serial: serial,
                pathTag: Array(bytes[(16 + KeyRing.keyBytes)...]))
        }
    }
}

/// Why `unlock` could not cache a key (exit 78).
package enum KeyCacheError: Error, Sendable, CustomStringConvertible {
    case keyring(KernelKeyring.Failure)
    case noSessionKeyring
    case foreignSessionKeyring(owner: uid_t)

    package var description: String {
        switch self {
        case .keyring(let failure): failure.description
        case .noSessionKeyring:
            "this process has no session keyring of its own (no login session); a key put there would die with this process. "
                + "Use --keyring user (or auto), or run inside a session ('keyctl session - CMD')."
        case .foreignSessionKeyring(let owner):
            "this process's session keyring belongs to uid \(owner) (su or sudo kept that user's session): every process of "
                + "that user would read a key cached there. Nothing was cached; run 'keychainctl unlock' in a session of your own "
                + "('keyctl session - CMD', or a login shell)."
        }
    }
}
