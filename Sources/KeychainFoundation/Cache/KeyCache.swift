import Glibc
import KeychainPlatform

/// A keychain's key cached in the kernel keyring by `unlock`, so that a passphrase keychain costs
/// later calls one keyring read instead of an Argon2id derivation (docs/CI.md).
///
/// One "user" key per keychain file, named `keychainctl:v1:<hex of the file's identity>:<tag>`
/// (the random id `init` stores, so a rekeyed file's key check refuses the stale key; and the
/// first bytes of its path's tag, so that copies of one file, which share the identity, are cached
/// and locked apart: `Slot`). Its payload is the 32-byte keychain key, the absolute expiry, the
/// idle timeout and the SHA-256 of the keychain's absolute path when it was unlocked, resolved and
/// as given (its tags: what `lock` of a keychain file that is gone removes, and nothing else, even
/// through a symbolic link that no longer leads anywhere); the kernel's own expiry is the sooner of the two,
/// re-armed on each use when an idle timeout is set, so a key never outlives either. A cached key
/// is only ever a candidate: the caller tries it against the file's key check and invalidates it
/// when it does not open.
package enum KeyCache {
    /// What every cached key's description starts with.
    package static let prefix = "keychainctl:v1:"
    private static let magic = Array("kck3".utf8)
    private static let tagBytes = 32
    private static let payloadBytes = 4 + KeyRing.keyBytes + 8 + 4 + 2 * tagBytes

    /// Where one keychain file's key is cached: its identity, and its path's tags.
    package struct Slot: Sendable {
        package let id: [UInt8]
        /// The SHA-256 of the absolute path with its symbolic links resolved as far as they lead.
        package let resolvedTag: [UInt8]
        /// The SHA-256 of the absolute path as given (only `.` and `..` folded).
        package let givenTag: [UInt8]

        /// The slot of the keychain `id` whose absolute path is `resolved` (its links followed) and
        /// `given` (as the user named it); `KeyCache.Slot(id:path:)` makes both from a path.
        package init(id: [UInt8], resolved: String, given: String) {
            self.id = id
            resolvedTag = KeyCache.pathTag(resolved)
            givenTag = KeyCache.pathTag(given)
        }

        /// The key's description: the identity, then the first 8 bytes of the resolved tag.
        package var description: String { prefix + Hex.lowercase(id) + ":" + Hex.lowercase(Array(resolvedTag.prefix(8))) }

        /// Whether a key with these tags was cached for this slot's path.
        func names(_ tags: [[UInt8]]) -> Bool { tags.contains(resolvedTag) || tags.contains(givenTag) }
    }

    /// A cached key as found.
    package struct Entry {
        package let key: SecretBytes
        /// Seconds since 1970 at which it expires for good; `nil`: at `lock` or logout.
        package let expires: UInt64?
        /// The idle timeout in seconds; `nil`: none.
        package let idle: UInt32?
        package let ring: KernelKeyring.Ring
        package let serial: Int32
        /// The SHA-256 of the keychain's absolute path when it was unlocked: resolved, then as given.
        package let pathTags: [[UInt8]]
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

    /// The key cached for `slot`, when one is reachable, owned by this user and has not expired;
    /// each use of a key with an idle timeout re-arms it (never past its absolute expiry).
    package static func lookup(_ slot: Slot, now: UInt64 = currentTime()) -> Entry? {
        let name = slot.description
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

    /// Caches `key` in `slot`, replacing what was cached there (a copy of the file elsewhere keeps
    /// its own): for `timeout` seconds (`nil`: until `lock`), and with `idle`, only while it keeps
    /// being used at most that far apart.
    package static func store(
        _ key: SecretBytes, in slot: Slot, timeout: UInt32?, idle: UInt32?, ring choice: RingChoice, shareUID: Bool,
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
        slot.resolvedTag.withUnsafeBytes { payload.append($0) }
        slot.givenTag.withUnsafeBytes { payload.append($0) }
        // Whatever was cached for this file in the other keyring goes first: one file, one cached key.
        invalidate(slot)
        forgetRemoval(of: slot)
        let serial: Int32
        do {
            serial = try KernelKeyring.add(
                slot.description, payload: payload, ring: ring,
                timeout: idle.map { remaining(idle: $0, expires: expires, now: now) } ?? timeout ?? 0, shareUID: shareUID)
        } catch { throw .keyring(error) }
        return Placement(ring: ring, serial: serial, expires: expires)
    }

    /// Invalidates the keys cached in `slot` (a copy of the file elsewhere keeps its own); whether
    /// there was one.
    @discardableResult
    package static func invalidate(_ slot: Slot, by remover: String? = nil) -> Bool {
        var found = false
        for ring in KernelKeyring.Ring.allCases {
            while let serial = KernelKeyring.search(slot.description, in: ring),
                remove(serial, described: slot.description, in: ring, by: remover, expires: read(serial, ring: ring)?.expires)
            {
                found = true
            }
        }
        return found
    }

    /// Invalidates every keychainctl key in either keyring that was cached for the path of `slot`
    /// (either of its tags; the identity is not read), and no other; how many there were. What `lock` removes when the file is
    /// gone and its identity cannot be read: another keychain's key, another job's, stays.
    package static func invalidate(taggedLike slot: Slot, by remover: String? = nil) -> Int {
        var count = 0
        for ring in KernelKeyring.Ring.allCases {
            for key in KernelKeyring.keys(in: ring, prefix: prefix) {
                guard let entry = read(key.serial, ring: ring), slot.names(entry.pathTags) else { continue }
                if remove(key.serial, described: key.description, in: ring, by: remover, expires: entry.expires) { count += 1 }
            }
        }
        return count
    }

    /// Invalidates every keychainctl key in `rings`; how many there were.
    package static func invalidateAll(in rings: [KernelKeyring.Ring] = KernelKeyring.Ring.allCases, by remover: String? = nil) -> Int {
        var count = 0
        for ring in rings {
            for key in KernelKeyring.keys(in: ring, prefix: prefix)
            where remove(key.serial, described: key.description, in: ring, by: remover, expires: read(key.serial, ring: ring)?.expires) {
                count += 1
            }
        }
        return count
    }

    /// Invalidates the cached key `serial` (described `description`, in `ring`); whether it was.
    /// With `remover`, the removal is noted, with the expiry the key had; the key is read for it
    /// only then: unlock's replacing of a key needs no note.
    private static func remove(
        _ serial: Int32, described description: String, in ring: KernelKeyring.Ring, by remover: String?,
        expires: @autoclosure () -> UInt64?
    ) -> Bool {
        let expiry = remover == nil ? nil : expires()
        guard KernelKeyring.invalidate(serial) else { return false }
        if let remover { recordRemoval(of: description, expires: expiry, by: remover, in: ring) }
        return true
    }

    /// The cached key `serial`, decoded; `nil` when it is not one.
    private static func read(_ serial: Int32, ring: KernelKeyring.Ring) -> Entry? {
        KernelKeyring.read(serial, length: payloadBytes).flatMap { decode($0, ring: ring, serial: serial) }
    }

    // MARK: What removed a key

    /// Where a removal is noted: the key's own description under this prefix, in the keyring it
    /// was in, for a day. No key material: the time, the expiry it had and what removed it.
    package static let removalPrefix = "keychainctl-removed:v1:"
    private static let removalMagic = Array("kcr1".utf8)
    private static let removalLifetime: UInt32 = 86_400

    /// The note's description for the key described `description`.
    private static func removalName(_ description: String) -> String { removalPrefix + description.dropFirst(prefix.count) }

    /// A cached key's removal, as the next command that finds no key can tell it.
    package struct Removal: Sendable {
        /// Seconds since 1970 when it was removed.
        package let at: UInt64
        /// When it would have expired (`nil`: at lock or logout).
        package let expires: UInt64?
        /// What removed it: `keychainctl lock`, `keychainctl lock --all`, `keychainctl exec --lock`…
        package let by: String
    }

    private static func recordRemoval(of description: String, expires: UInt64?, by remover: String, in ring: KernelKeyring.Ring) {
        let payload = SecretBytes(count: 0)
        removalMagic.withUnsafeBytes { payload.append($0) }
        withUnsafeBytes(of: currentTime().bigEndian) { payload.append($0) }
        withUnsafeBytes(of: (expires ?? 0).bigEndian) { payload.append($0) }
        Array(remover.utf8.prefix(64)).withUnsafeBytes { payload.append($0) }
        let name = removalName(description)
        // One note per key: a newer one replaces the older.
        removeEvery(named: name, in: [ring])
        _ = try? KernelKeyring.add(name, payload: payload, ring: ring, timeout: removalLifetime, shareUID: false)
    }

    /// The removal noted for `slot`'s key, when there is one (this user's, within a day).
    package static func removal(of slot: Slot) -> Removal? {
        let name = removalName(slot.description)
        for ring in KernelKeyring.Ring.allCases {
            guard let serial = KernelKeyring.search(name, in: ring, ownOnly: true) else { continue }
            // No key material in it: read into an ordinary buffer, as long as the note may be.
            var bytes = [UInt8](repeating: 0, count: 4 + 8 + 8 + 64)
            let count = bytes.withUnsafeMutableBytes { KernelKeyring.read(serial, into: $0) }
            guard count >= 20, count <= bytes.count, Array(bytes.prefix(4)) == removalMagic else { continue }
            let expires = bytes.withUnsafeBytes { ByteOrder.bigEndian($0[12..<20]) }
            return Removal(
                at: bytes.withUnsafeBytes { ByteOrder.bigEndian($0[4..<12]) }, expires: expires == 0 ? nil : expires,
                by: String(decoding: bytes[20..<count], as: UTF8.self))
        }
        return nil
    }

    /// Forgets the removal noted for `slot` (a new key is cached for it).
    private static func forgetRemoval(of slot: Slot) {
        removeEvery(named: removalName(slot.description), in: KernelKeyring.Ring.allCases)
    }

    /// Invalidates every key described `name` in `rings`.
    private static func removeEvery(named name: String, in rings: [KernelKeyring.Ring]) {
        for ring in rings {
            while let serial = KernelKeyring.search(name, in: ring), KernelKeyring.invalidate(serial) {}
        }
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
            let tags = 16 + KeyRing.keyBytes
            return Entry(
                key: key, expires: expires == 0 ? nil : expires, idle: idle == 0 ? nil : idle, ring: ring, serial: serial,
                pathTags: [Array(bytes[tags..<(tags + tagBytes)]), Array(bytes[(tags + tagBytes)...])])
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
