/// The keychain status codes keychainctl returns (docs/FIDELITY.md), with Apple's messages.
package enum KeychainStatus: Int32, Sendable, CaseIterable {
    case param = -50
    case userCanceled = -128
    case authFailed = -25293
    case notAvailable = -25291
    case duplicateKeychain = -25296
    case duplicateItem = -25299
    case itemNotFound = -25300
    case noSuchAttr = -25303
    case noSuchClass = -25306
    case interactionNotAllowed = -25308
    case decode = -26275
    case missingEntitlement = -34018
    case restrictedAPI = -34020

    /// One row of the status table: what usually causes the status in keychainctl, and the commands
    /// that return it. The one table behind error reports, `keychainctl error` and the reference's
    /// exit-status table; Apple's name and message come from `AppleStatuses`, written once.
    package struct Description: Sendable {
        package let causes: String
        /// What keychainctl says instead where Apple's words mislead on Linux (no computer to
        /// restart, no user name); `nil` where Apple's are right.
        package var ownMessage: String? = nil
        /// The commands that can end with it (`keychainctl error` names them).
        package var commands: [String] = []
    }

    /// The item commands, which meet most statuses: the SecItem four, their everyday forms, and
    /// what reads or writes items in bulk.
    private static let itemCommands = [
        "add", "find", "update", "delete", "set", "get", "ls", "rm", "import", "export", "exec", "migrate-group",
    ]
    /// The commands that read items' secrets.
    private static let secretReaders = ["find", "get", "update", "delete", "rm", "export", "exec"]
    /// Every command that opens a keychain.
    private static let openers = itemCommands + ["backup", "rekey", "unlock", "sync", "verify", "device", "explain", "matrix"]

    /// This status's row.
    package var row: Description {
        switch self {
        case .param:
            Description(
                causes:
                    "a malformed value, an invalid accessibility, a bad limit, a secret over 16 MiB, an access control Apple refuses (or given with `--sync yes` or `--attr pdmn`), `--auth-ui skip` outside find, a prompt answered with anything but approve, cancel or fail; an empty secret given to `set` on standard input or at its prompt; a `--ref-file` that is not a certificate or key keychainctl reads (named), a PKCS#12 with no identity, a private key's bytes asked for without `--allow-private-key-export` or not extractable",
                commands: Self.itemCommands + ["explain", "matrix"])
        case .userCanceled:
            Description(
                causes: "authentication cancelled (`--auth cancel`, or at the prompt); a confirmation answered no",
                commands: Self.secretReaders + ["verify", "device"])
        case .authFailed:
            Description(
                causes:
                    "wrong key or passphrase (a passphrase record whose Argon2id parameters were edited within their bounds derives another key, which looks the same); authentication failed, or asked of a device that cannot give it (no biometry, no passcode); a wrong application password; an `akpu` add without a passcode; a wrong PKCS#12 passphrase. Nothing was read or changed",
                ownMessage: "The key, passphrase or password given is not correct, or authentication failed.", commands: Self.openers)
        case .notAvailable:
            Description(
                causes:
                    "no keychain at that path (run `init`). On iOS: a keyboard extension without Full Access (kishikawakatsumi/KeychainAccess#470)",
                ownMessage: "No keychain is available at that path.", commands: Self.openers)
        case .duplicateKeychain:
            Description(
                causes: "`init` on an existing keychain; `backup` to a file that exists",
                ownMessage: "The file already exists.", commands: ["init", "backup", "cloud"])
        case .duplicateItem:
            Description(
                causes:
                    "an item with the same primary key (class, account, service or server…, access group, sync) exists; a find that missed it carried a non-key attribute such as the label or `pdmn` (`add -U` replaces instead)",
                commands: ["add", "update", "import", "migrate-group", "sync"])
        case .itemNotFound:
            Description(
                causes:
                    "nothing matches in the groups this profile reads: the item is in another target's default group, synchronizable (the query needs `--sync any`), has another service or class, or macOS ignored the group the item is in (`keychainctl groups` lists the groups this profile reads)",
                commands: ["find", "get", "update", "delete", "rm", "export", "exec", "migrate-group"])
        case .noSuchAttr:
            Description(
                causes: "an attribute the class does not have",
                commands: ["add", "find", "update", "delete", "import", "explain", "matrix"])
        case .noSuchClass:
            Description(
                causes: "a class that is none of genp, inet, cert, keys and idnt",
                commands: ["add", "find", "update", "delete", "import", "export", "explain", "matrix"])
        case .interactionNotAllowed:
            Description(
                causes:
                    "an item of a class the device's lock state makes unavailable; a protected item with nobody to authenticate (no `--auth`, no terminal) or `--auth-ui fail`; an application password not given; a confirmation (`verify --repair`, `device passcode remove`, `device biometry change`) with no terminal and no `--yes`; a keychain with no key source, no key cached by `unlock` and no terminal to ask for its passphrase (`unlock --status`: nothing cached)",
                commands: Self.itemCommands + ["unlock", "verify", "device"])
        case .decode:
            Description(
                causes:
                    "a tampered or damaged item or class key, the row kept and named (see below); a malformed PKCS#12, one whose key is not RSA or EC, or one asking for too many key-derivation iterations",
                commands: Self.secretReaders + ["verify", "import", "sync", "rekey"])
        case .missingEntitlement:
            Description(
                causes:
                    "the profile may not use that group: a group without its Team ID prefix, another target's group, no writable group at all, or on macOS an application identifier or app group that no provisioning profile validates",
                commands: Self.itemCommands)
        case .restrictedAPI:
            Description(
                causes:
                    "an App Clip (`com.apple.developer.on-demand-install-capable`) whose access groups are more than its application identifier, or that adds or updates a synchronizable item",
                commands: ["add", "find", "update", "delete", "set", "get", "ls", "rm"])
        }
    }

    /// Apple's row for this status: its constant name and message (SecBase.h).
    package var apple: AppleStatuses.Row {
        AppleStatuses.row(status: rawValue) ?? AppleStatuses.Row(name: "OSStatus \(rawValue)", status: rawValue, message: "")
    }

    /// Apple's constant name.
    package var name: String { apple.name }

    /// Apple's message (`SecCopyErrorMessageString`).
    package var appleMessage: String { apple.message }

    /// The message errors show: Apple's, or keychainctl's own where Apple's misleads on Linux.
    package var message: String { row.ownMessage ?? appleMessage }

    /// The status called `name`: Apple's constant (`errSecItemNotFound`), with or without its
    /// `errSec` prefix, in any case.
    package init?(name: String) {
        guard let apple = AppleStatuses.row(named: name) else { return nil }
        self.init(rawValue: apple.status)
    }

    /// The shell exit status: the status's low byte, as macOS `security` exits.
    package var exitStatus: Int32 { rawValue & 0xFF }
}

/// A keychain status with a hint that explains this case. Never carries secret bytes.
package struct KeychainError: Error, Sendable, Equatable {
    /// The status.
    package let status: KeychainStatus
    /// One line explaining this case (which groups the profile has, what was probably meant).
    package let hint: String
    /// For errSecDecode: the damaged rows it is about.
    package let damaged: [DamagedRow]

    /// A status with its explanation.
    package init(_ status: KeychainStatus, hint: String, damaged: [DamagedRow] = []) {
        self.status = status
        self.hint = hint
        self.damaged = damaged
    }
}
