import KeychainPlatform
import TextEscaping

/// A SecAccessControl as keychainctl simulates it (docs/FIDELITY.md): the
/// protection class and what reading the item requires. Every item has one; an item added with
/// only an accessibility has the protection alone. The `accc` column holds it in the text form of
/// Apple's `security` tool (`ak;od(cbio(pbioh(…)));odel(true);oe(true)`), bound into the row's
/// authenticated data whenever it says more than the protection.
package struct AccessControl: Sendable, Equatable {
    /// `SecAccessControlCreateFlags`, with Apple's bit values.
    package struct Flags: OptionSet, Sendable {
        package let rawValue: UInt32
        package init(rawValue: UInt32) { self.rawValue = rawValue }

        package static let userPresence = Flags(rawValue: 1 << 0)
        package static let biometryAny = Flags(rawValue: 1 << 1)
        package static let biometryCurrentSet = Flags(rawValue: 1 << 3)
        package static let devicePasscode = Flags(rawValue: 1 << 4)
        package static let or = Flags(rawValue: 1 << 14)
        package static let and = Flags(rawValue: 1 << 15)
        package static let privateKeyUsage = Flags(rawValue: 1 << 30)
        package static let applicationPassword = Flags(rawValue: 1 << 31)

        /// The CLI's word for each flag, in the order help lists them.
        package static let words: [(word: String, flag: Flags)] = [
            ("user-presence", .userPresence), ("biometry-any", .biometryAny), ("biometry-current-set", .biometryCurrentSet),
            ("device-passcode", .devicePasscode), ("application-password", .applicationPassword),
            ("private-key-usage", .privateKeyUsage), ("or", .or), ("and", .and),
        ]

        /// The constraints proper (what `od` asks for).
        package static let constraints: Flags = [.userPresence, .biometryAny, .biometryCurrentSet, .devicePasscode]

        /// Parses a comma list of words; an empty list is no flag (Apple's "default ACL").
        /// errSecParam names an unknown word.
        package init(parsing text: String) throws(KeychainError) {
            var flags = Flags()
            for piece in text.split(separator: ",", omittingEmptySubsequences: false) {
                let word = piece.trimmingSpaces
                if word.isEmpty, text.isEmpty { break }
                guard let known = Self.words.first(where: { $0.word == word }) else {
                    throw KeychainError(
                        .param,
                        hint: "'\(String(word.prefix(40)).terminalSafe)' is not an access-control flag; use a comma list of: "
                            + "\(Self.words.map(\.word).joined(separator: ", ")).")
                }
                flags.insert(known.flag)
            }
            self = flags
        }

        /// The words of these flags, comma-separated.
        package var words: String { Self.words.filter { contains($0.flag) }.map(\.word).joined(separator: ",") }
    }

    /// One thing a read must satisfy.
    package enum Constraint: Sendable, Equatable {
        case userPresence
        case biometryAny
        /// Bound to the biometry set enrolled when the item was added.
        case biometryCurrentSet([UInt8])
        case devicePasscode

        /// How a prompt names it.
        package var name: String {
            switch self {
            case .userPresence: "user presence (Face ID, Touch ID or the passcode)"
            case .biometryAny: "Face ID / Touch ID (any enrolled biometry)"
            case .biometryCurrentSet: "Face ID / Touch ID (the biometry enrolled when the item was added)"
            case .devicePasscode: "the device passcode"
            }
        }
    }

    /// The accessibility class.
    package let protection: Accessibility
    /// The flags it was created with (`.and` stands for the implicit conjunction).
    package let flags: Flags
    /// The biometry set a biometry-current-set control is bound to.
    package let boundBiometrySet: [UInt8]?
    /// Whether it was created with flags (even none: Apple's "default ACL", `dacl(true)`), rather
    /// than being an item's protection alone.
    package let hasACL: Bool

    /// The protection alone: what an item added with only an accessibility has.
    package init(protection: Accessibility) {
        self.protection = protection
        flags = []
        boundBiometrySet = nil
        hasACL = false
    }

    /// `SecAccessControlCreateWithFlags` (`SecAccessControl.m:150-290`): every combination Apple
    /// refuses is errSecParam naming its rule. `biometrySet` is the device's enrolled set, bound
    /// into a biometry-current-set control (checked separately, at add: none enrolled is -25293).
    package init(protection: Accessibility, flags: Flags, biometrySet: [UInt8]?) throws(KeychainError) {
        func refuse(_ rule: String) -> KeychainError {
            KeychainError(.param, hint: "access control \(flags.words): \(rule) (SecAccessControlCreateWithFlags).")
        }
        if flags.contains(.or), flags.contains(.and) { throw refuse("only one logical operation, or / and, can be set") }
        if flags.contains(.biometryAny), flags.contains(.biometryCurrentSet) {
            throw refuse("only one biometry constraint, biometry-any or biometry-current-set, can be set")
        }
        if flags.contains(.userPresence), !flags.subtracting([.userPresence, .applicationPassword, .privateKeyUsage]).isEmpty {
            throw refuse(
                "user-presence already means biometry or passcode; it combines only with application-password and private-key-usage")
        }
        self.protection = protection
        self.flags = flags
        boundBiometrySet = flags.contains(.biometryCurrentSet) ? (biometrySet ?? []) : nil
        hasACL = true
    }

    /// The constraints a read must satisfy, in Apple's text order.
    package var constraints: [Constraint] {
        var list: [Constraint] = []
        if flags.contains(.userPresence) { list.append(.userPresence) }
        if flags.contains(.biometryAny) { list.append(.biometryAny) }
        if let boundBiometrySet { list.append(.biometryCurrentSet(boundBiometrySet)) }
        if flags.contains(.devicePasscode) { list.append(.devicePasscode) }
        return list
    }

    /// Whether one satisfied constraint is enough (`or`); otherwise all are needed.
    package var needsAny: Bool { flags.contains(.or) }

    /// Whether reading the item (attributes, data, even its existence) asks for authentication:
    /// constraints on decryption, or an application password. With private-key-usage the
    /// constraints guard the key's operations instead (`SecAccessControl.m:222-249`).
    package var guardsReads: Bool {
        flags.contains(.applicationPassword) || (!constraints.isEmpty && !flags.contains(.privateKeyUsage))
    }

    /// Whether it is the protection alone.
    package var isProtectionOnly: Bool { !hasACL }

    /// Apple's `security` text form (`SecurityCommands.h:45-49`).
    package var text: String {
        guard !isProtectionOnly else { return protection.rawValue }
        var parts = [protection.rawValue]
        var constraint = constraints.map { constraint -> String in
            switch constraint {
            case .userPresence: "cpo(DeviceOwnerAuthentication)"
            case .biometryAny: "cbio(pbioc())"
            case .biometryCurrentSet(let set): "cbio(pbioh(\(Hex.lowercase(set))))"
            case .devicePasscode: "cup(true)"
            }
        }.joined()
        if constraints.count > 1 { constraint += "pkofn(\(needsAny ? 1 : constraints.count))" }
        if flags.contains(.privateKeyUsage) {
            let guarded = constraint.isEmpty ? "true" : constraint
            parts += ["oa(true)", "ock(\(guarded))", "odel(true)", "osgn(\(guarded))"]
        } else if constraint.isEmpty {
            parts.append("dacl(true)")
        } else {
            parts += ["od(\(constraint))", "odel(true)", "oe(true)"]
        }
        if flags.contains(.applicationPassword) { parts.append("prp(true)") }
        return parts.joined(separator: ";")
    }

    /// Parses a stored `accc` value: only the exact text `text` renders is accepted, so that a
    /// value keychainctl did not write is refused (the row is reported damaged).
    package init?(stored: String) {
        let protectionText = stored.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
        guard let protection = Accessibility(rawValue: protectionText) else { return nil }
        if stored == protectionText {
            self.init(protection: protection)
            return
        }
        var flags = Flags()
        var set: [UInt8]?
        let tokens: [(String, Flags)] = [
            ("cpo(", .userPresence), ("pbioc(", .biometryAny), ("cup(", .devicePasscode), ("osgn(", .privateKeyUsage),
            ("prp(true)", .applicationPassword),
        ]
        for (token, flag) in tokens where stored.containsBytes(token) { flags.insert(flag) }
        if let start = stored.utf8.firstRange(ofBytes: "pbioh(".utf8) {
            let hex = stored[start.upperBound...].prefix { $0 != ")" }
            guard let bytes = Self.bytes(hex: hex) else { return nil }
            flags.insert(.biometryCurrentSet)
            set = bytes
        }
        if flags.intersection(Flags.constraints).rawValue.nonzeroBitCount > 1 {
            flags.insert(stored.containsBytes("pkofn(1)") ? .or : .and)
        }
        guard let parsed = try? AccessControl(protection: protection, flags: flags, biometrySet: set), parsed.text == stored else {
            return nil
        }
        self = parsed
    }

    private static func bytes(hex: Substring) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count == 2 * DeviceState.biometrySetBytes else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}

extension Substring {
    /// Without leading and trailing spaces.
    package var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
