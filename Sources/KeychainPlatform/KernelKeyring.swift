import CKeyring
import Glibc

// The platform's own calls, each behind a small Swift type: a port to another system changes
// this module alone (ArchitectureTests checks that no other module calls the C shims it wraps).

/// The Linux kernel keyring, as far as the key cache needs it: "user" keys in the session or the
/// user keyring, found by description. No daemon: the kernel holds the payload, forgets it at its
/// expiry, and destroys it when invalidated (docs/CI.md).
public enum KernelKeyring {
    /// Where a cached key lives.
    /// Searched in this order: the user keyring first, because without a session keyring of its
    /// own a process's session keyring leads to the user keyring too, and the key is reported
    /// where it is.
    public enum Ring: String, Sendable, CaseIterable {
        /// The user keyring: every process of this user without a private session keyring of its own.
        case user
        /// The session keyring: every descendant of the login or CI session holds it, nothing else.
        case session

        public var special: Int32 { self == .session ? CKEYRING_SPEC_SESSION : CKEYRING_SPEC_USER }
    }

    /// A system call the kernel refused, with its errno.
    public struct Failure: Error, Sendable {
        public let errno: Int32
        public let call: String

        /// Whether the keyring itself is unavailable here (a seccomp filter such as Docker's default
        /// one, or a kernel without keys), as opposed to one key or keyring refusing.
        public var blocked: Bool { [EPERM, ENOSYS, EOPNOTSUPP].contains(errno) && call != "keyctl(SETPERM)" }

        public var description: String {
            if blocked {
                return "the kernel keyring is not available here (\(call): \(SystemError.text(errno))); "
                    + "a container's default seccomp profile blocks it. Use KEYCHAINCTL_KEY_FILE instead."
            }
            return "the kernel keyring refused \(call): \(SystemError.text(errno))."
        }
    }

    /// Who owns this process's session keyring: `nil` when it has none of its own (no PAM login,
    /// as under a service manager: the session keyring is then the user-session keyring
    /// `_uid_ses.UID`, and a key added to "the session keyring" would land in a fresh anonymous
    /// keyring that dies with this process). Told by the keyring's name: comparing its serial with
    /// the user-session keyring's is racy where that keyring is created lazily (a new user
    /// namespace). An owner other than this user means an inherited session: `su` without a
    /// login, or `sudo` with a `pam_keyinit` that does not force a new one.
    public static func sessionKeyringOwner() throws(Failure) -> uid_t? {
        let session = ckeyring_keyring_id(CKEYRING_SPEC_SESSION, 0)
        guard session >= 0 else {
            if errno == ENOKEY { return nil }
            throw Failure(errno: errno, call: "keyctl(GET_KEYRING_ID)")
        }
        guard let description = describe(Int32(session)) else { throw Failure(errno: errno, call: "keyctl(DESCRIBE)") }
        return description.type == "keyring" && description.name.hasPrefix("_uid_ses.") ? nil : description.owner
    }

    /// Whether this process has a session keyring of its own: one it has, owned by this user. A
    /// key put in another user's would be possessed (so read) by every process of that user.
    public static func hasOwnSessionKeyring() throws(Failure) -> Bool {
        try sessionKeyringOwner() == geteuid()
    }

    /// A key's type, owner and description (KEYCTL_DESCRIBE: "type;uid;gid;perm;description").
    public static func describe(_ serial: Int32) -> (type: String, owner: uid_t, name: String)? {
        var buffer = [CChar](repeating: 0, count: 512)
        let got = ckeyring_describe(serial, &buffer, buffer.count)
        guard got > 0, got <= buffer.count else { return nil }
        let text = String(decoding: buffer.prefix(Int(got) - 1).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // The description is the fifth field and may itself hold ';'.
        let fields = text.split(separator: ";", maxSplits: 4, omittingEmptySubsequences: false)
        guard fields.count == 5, let owner = uid_t(fields[1]) else { return nil }
        return (String(fields[0]), owner, String(fields[4]))
    }

    /// Adds (or replaces) the key `description` in `ring` with `payload`, readable by its possessors
    /// only (and, with `shareUID`, by every process of this user), expiring after `timeout` seconds
    /// (0: never). Returns its serial.
    ///
    /// The key is made in this process's own keyring, which no other process can search, given its
    /// permissions and expiry there, and only then linked into `ring`: a step the kernel refuses
    /// leaves no key anywhere (it is invalidated, and the process keyring dies with the process),
    /// never one without its expiry in a keyring every process of the user can reach.
    public static func add(
        _ description: String, payload: UnsafeRawBufferPointer, ring: Ring, timeout: UInt32, shareUID: Bool
    ) throws(Failure) -> Int32 {
        let made = ckeyring_add(description, payload.baseAddress, payload.count, CKEYRING_SPEC_PROCESS)
        guard made >= 0 else { throw Failure(errno: errno, call: "add_key") }
        let serial = Int32(made)
        func abandoned(_ call: String) -> Failure {
            let failure = Failure(errno: errno, call: call)
            _ = ckeyring_invalidate(serial)
            return failure
        }
        // A new key's permissions are the kernel's default, possessor: all, user: view
        // (0x3f010000). shareUID adds the user's read and search.
        if shareUID, ckeyring_set_permissions(serial, 0x3f0b_0000) != 0 { throw abandoned("keyctl(SETPERM)") }
        guard ckeyring_set_timeout(serial, timeout) == 0 else { throw abandoned("keyctl(SET_TIMEOUT)") }
        guard ckeyring_link(serial, ring.special) == 0 else { throw abandoned("keyctl(LINK)") }
        _ = ckeyring_unlink(serial, CKEYRING_SPEC_PROCESS)
        return serial
    }

    /// Links the user keyring into this process's own keyring, so that this process possesses the
    /// keys in it: where the session keyring does not link the user keyring (a login without
    /// pam_keyinit, a service's private session keyring), a key found there is otherwise only
    /// visible, not readable, re-armable or removable. Whether it is linked.
    @discardableResult
    public static func possessUserKeyring() -> Bool {
        ckeyring_link(CKEYRING_SPEC_USER, CKEYRING_SPEC_PROCESS) == 0
    }

    /// Runs `call` on a key; when the kernel denies it for want of possession, once more after
    /// taking possession of the user keyring (see `possessUserKeyring`).
    private static func possessing(_ call: () -> Int) -> Int {
        let result = call()
        guard result < 0, errno == EACCES, possessUserKeyring() else { return result }
        return call()
    }

    /// The serial of the key `description` reachable from `ring`; `nil` when there is none, it
    /// expired, or the keyring cannot be reached (all of them mean "not cached"). With `ownOnly`,
    /// a key another user owns (put in a session keyring this process shares) is not taken.
    public static func search(_ description: String, in ring: Ring, ownOnly: Bool = false) -> Int32? {
        let serial = ckeyring_search(ring.special, description)
        guard serial >= 0 else { return nil }
        if ownOnly, describe(Int32(serial))?.owner != geteuid() { return nil }
        return Int32(serial)
    }

    /// Reads the payload of key `serial` into `buffer`: its full length (which may exceed the
    /// buffer's, and then nothing past it was written), or -1 with errno set.
    public static func read(_ serial: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        possessing { ckeyring_read(serial, buffer.baseAddress, buffer.count) }
    }

    /// Re-arms key `serial` to expire `seconds` from now.
    public static func setTimeout(_ serial: Int32, seconds: UInt32) {
        _ = possessing { ckeyring_set_timeout(serial, seconds) }
    }

    /// Invalidates key `serial`: gone from every keyring, its payload destroyed.
    @discardableResult
    public static func invalidate(_ serial: Int32) -> Bool { possessing { ckeyring_invalidate(serial) } == 0 }

    /// The "user" keys directly in `ring` whose description starts with `prefix`.
    public static func keys(in ring: Ring, prefix: String) -> [(serial: Int32, description: String)] {
        let ringID = ckeyring_keyring_id(ring.special, 0)
        guard ringID >= 0 else { return [] }
        // The keyring's list is read again, larger, until it fits (it may grow between two reads).
        var serials = [Int32](repeating: 0, count: 256)
        var length = 0
        while true {
            let got = serials.withUnsafeMutableBytes { ckeyring_read(Int32(ringID), $0.baseAddress, $0.count) }
            guard got >= 0 else { return [] }
            length = Int(got)
            if length <= serials.count * 4 { break }
            serials = [Int32](repeating: 0, count: length / 4 + 64)
        }
        var found: [(Int32, String)] = []
        for serial in serials.prefix(length / 4) {
            guard let key = describe(serial), key.type == "user", key.name.hasPrefix(prefix) else { continue }
            found.append((serial, key.name))
        }
        return found
    }
}
