/// The keychain item classes (`kSecClass`), by their four-character table codes.
package enum ItemClass: String, Sendable, CaseIterable, Comparable {
    /// Generic password (`kSecClassGenericPassword`).
    case genericPassword = "genp"
    /// Internet password (`kSecClassInternetPassword`).
    case internetPassword = "inet"
    /// Certificate (`kSecClassCertificate`).
    case certificate = "cert"
    /// Cryptographic key (`kSecClassKey`).
    case key = "keys"
    /// Identity (`kSecClassIdentity`): a join of a certificate and its private key, not a table.
    case identity = "idnt"

    /// Every spelling `init(parsing:)` accepts, codes first (for completion).
    package static var spellings: [String] { allCases.map(\.rawValue) + allCases.map(\.argumentName) }

    /// Parses a class code or its command-line name; `nil` for anything else (errSecNoSuchClass).
    /// Every find parses its class, and most give a code or none (`""`): names are made only when
    /// neither.
    package init?(parsing text: String) {
        if let code = Self(rawValue: text) {
            self = code
        } else if !text.isEmpty, let named = Self.allCases.first(where: { $0.argumentName == text }) {
            self = named
        } else {
            return nil
        }
    }

    /// The name the command line takes besides the code: the long name, hyphenated
    /// (`generic-password`).
    package var argumentName: String {
        String(decoding: longName.utf8.map { $0 == UInt8(ascii: " ") ? UInt8(ascii: "-") : $0 }, as: UTF8.self)
    }

    /// The long name used in CLI output.
    package var longName: String {
        switch self {
        case .genericPassword: "generic password"
        case .internetPassword: "internet password"
        case .certificate: "certificate"
        case .key: "key"
        case .identity: "identity"
        }
    }

    /// Whether an item of the class is an object `kSecReturnRef` returns (a certificate, key or
    /// identity); a password is not.
    package var hasReference: Bool { self != .genericPassword && self != .internetPassword }

    /// Classes that are tables of their own (every class but identity).
    package static let stored: [ItemClass] = [.genericPassword, .internetPassword, .certificate, .key]

    package static func < (lhs: ItemClass, rhs: ItemClass) -> Bool {
        stored.firstIndex(of: lhs) ?? 9 < stored.firstIndex(of: rhs) ?? 9
    }
}
