import KeychainFormats
import KeychainFoundation

/// A lint rule's id, as reports print it (`KC004`): one case per row of `LintRule.all`, so that a
/// check cannot name a rule the table lacks.
package enum LintRuleID: String, Sendable, CaseIterable, Comparable {
    case kc001 = "KC001"
    case kc002 = "KC002"
    case kc003 = "KC003"
    case kc004 = "KC004"
    case kc007 = "KC007"
    case kc009 = "KC009"
    case kc010 = "KC010"
    case kc011 = "KC011"
    case kc012 = "KC012"
    case kc013 = "KC013"
    case kc014 = "KC014"
    case kc015 = "KC015"
    case kc016 = "KC016"
    case kc017 = "KC017"
    case kc018 = "KC018"
    case kc019 = "KC019"
    case kc020 = "KC020"
    case kc021 = "KC021"
    case kc022 = "KC022"

    package static func < (a: LintRuleID, b: LintRuleID) -> Bool { a.rawValue < b.rawValue }
}

/// The lint rules (docs/DEBUGGING.md): one table, behind the checks, the text and
/// JSON reports, SARIF's rule list and the table in docs/DEBUGGING.md.
package struct LintRule: Sendable {
    /// How bad a finding is.
    package enum Severity: String, Sendable, Comparable {
        /// Apple will reject, kill or refuse, or the groups cannot work at all.
        case error
        /// It runs, but sharing or a read will not do what the files suggest.
        case warning
        /// Worth knowing.
        case info

        private var rank: Int {
            switch self {
            case .error: 0
            case .warning: 1
            case .info: 2
            }
        }

        package static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
    }

    package let id: LintRuleID
    /// What the rule looks for, in a few words.
    package let title: String
    /// Its usual severity (some findings of a rule are milder or worse, as the table says).
    package let severity: Severity
    /// Where the behaviour is documented.
    package let sources: [String]

    /// Every rule, by id.
    package static let all: [LintRule] = [
        LintRule(id: .kc001, title: "access group without an App ID prefix", severity: .error, sources: ["TN3125", "ITMS-90164"]),
        LintRule(id: .kc002, title: "build variable left unresolved", severity: .error, sources: ["TN3125"]),
        LintRule(
            id: .kc003, title: "a target cannot read another's default add group", severity: .warning,
            sources: ["SecItemAdd kSecAttrAccessGroup", "openradar 20744541"]),
        LintRule(id: .kc004, title: "malformed App ID prefix", severity: .error, sources: ["TN3125"]),
        LintRule(id: .kc007, title: "App ID prefixes differ", severity: .error, sources: ["TN2311", "QA1726"]),
        LintRule(id: .kc009, title: "claim not allowed by the provisioning profile", severity: .error, sources: ["TN3125"]),
        LintRule(id: .kc010, title: "wildcard in claimed entitlements", severity: .error, sources: ["TN3125"]),
        LintRule(id: .kc011, title: "source and signed entitlements differ", severity: .warning, sources: ["TN3125"]),
        LintRule(id: .kc012, title: "default add groups differ between targets", severity: .warning, sources: ["openradar 20744541"]),
        LintRule(
            id: .kc013, title: "app group where it does not count", severity: .warning,
            sources: ["Apple testInvalidAppGroups", "App Groups: macOS vs iOS"]),
        LintRule(id: .kc014, title: "macOS: no usable data-protection keychain entitlement", severity: .error, sources: ["TN3137"]),
        LintRule(
            id: .kc015, title: "macOS: standalone executable claiming restricted entitlements", severity: .error, sources: ["TN3125"]),
        LintRule(id: .kc016, title: "groups lost in a team change", severity: .info, sources: ["forums 706128", "QA1726"]),
        LintRule(id: .kc017, title: "com.apple.token listed on macOS", severity: .warning, sources: ["forums 655285"]),
        LintRule(id: .kc018, title: "array entitlement with a non-string element", severity: .error, sources: ["SecTaskCopyAccessGroups"]),
        LintRule(id: .kc019, title: "build variables inside a provisioning profile", severity: .warning, sources: ["TN3125"]),
        LintRule(
            id: .kc020, title: "provisioning profile expired, expiring or for another platform", severity: .error, sources: ["TN3125"]),
        LintRule(id: .kc021, title: "a code group no target may use", severity: .error, sources: ["SecItemServer.c"]),
        LintRule(
            id: .kc022, title: "misspelled keychain entitlement key", severity: .error,
            sources: ["TN3125", "SecTaskCopyAccessGroups"]),
    ]

    /// The rule `id` (a programming error if there is none).
    package static func rule(_ id: LintRuleID) -> LintRule { all.first { $0.id == id }! }
}

/// One thing lint found.
package struct LintFinding: Sendable {
    package let rule: LintRuleID
    package let severity: LintRule.Severity
    /// The file it is about (`--code-group` for groups given on the command line).
    package let file: String
    /// The target it is about, when it is about one.
    package var target: String? = nil
    /// The entitlement, its index in an array entitlement, and the value, when it is about one.
    package var key: String? = nil
    package var index: Int? = nil
    package var value: String? = nil
    /// What is wrong and what it causes.
    package let message: String
    /// The concrete fix.
    package var fix: String? = nil
    /// The fix as edits of the files, when it is one (every edit is part of it).
    package var edits: [LintEdit] = []
    /// The status the user will see at run time, with its name.
    package var runtime: (status: Int32, name: String)? = nil

    /// `keychain-access-groups[1] "value"`, or the key alone.
    package var location: String? {
        let quoted = value.map { "\"\($0)\"" }
        guard let key else { return quoted }
        return key + (index.map { "[\($0)]" } ?? "") + (quoted.map { " " + $0 } ?? "")
    }
}
