import Testing

@testable import KeychainCore

/// The access-group check table of docs/FIDELITY.md, in the manner of Apple's KeychainEntitlementsTest:
/// each profile × operation × group argument gives one status.
@Suite struct AccessMatrixTests {
    enum Operation: String, Sendable { case add, find, update, delete }

    struct Case: CustomTestStringConvertible, Sendable {
        let profile: String
        let operation: Operation
        let group: String?
        let expected: Int32
        var testDescription: String { "\(profile) \(operation.rawValue) \(group ?? "(no group)") → \(expected)" }
    }

    static let cases: [Case] = [
        // No entitlements at all: -34018 everywhere.
        Case(profile: "no-entitlements.plist", operation: .add, group: nil, expected: -34018),
        Case(profile: "no-entitlements.plist", operation: .find, group: nil, expected: -34018),
        Case(profile: "no-entitlements.plist", operation: .update, group: nil, expected: -34018),
        Case(profile: "no-entitlements.plist", operation: .delete, group: nil, expected: -34018),
        // Token group only: readable, so find looks and finds nothing; writes are refused.
        Case(profile: "token-reader.plist", operation: .add, group: nil, expected: -34018),
        Case(profile: "token-reader.plist", operation: .find, group: nil, expected: -25300),
        Case(profile: "token-reader.plist", operation: .update, group: nil, expected: -34018),
        Case(profile: "token-reader.plist", operation: .add, group: "com.apple.token", expected: -34018),
        // An explicit group outside the list (and the empty string) is -34018 for every operation.
        Case(profile: "widget.plist", operation: .add, group: Fixtures.sharedGroup, expected: -34018),
        Case(profile: "widget.plist", operation: .find, group: Fixtures.sharedGroup, expected: -34018),
        Case(profile: "widget.plist", operation: .update, group: Fixtures.sharedGroup, expected: -34018),
        Case(profile: "widget.plist", operation: .delete, group: Fixtures.sharedGroup, expected: -34018),
        Case(profile: "app.plist", operation: .add, group: "", expected: -34018),
        Case(profile: "app.plist", operation: .find, group: "", expected: -34018),
        Case(profile: "app.plist", operation: .add, group: "com.example.shared", expected: -34018),
        // Without an explicit group, other groups' items are simply invisible.
        Case(profile: "widget.plist", operation: .find, group: nil, expected: -25300),
        Case(profile: "widget.plist", operation: .update, group: nil, expected: -25300),
        Case(profile: "widget.plist", operation: .delete, group: nil, expected: -25300),
        Case(profile: "other-team.plist", operation: .find, group: nil, expected: -25300),
        // A member of the group sees and changes the item.
        Case(profile: "share-extension.plist", operation: .find, group: nil, expected: 0),
        Case(profile: "share-extension.plist", operation: .find, group: Fixtures.sharedGroup, expected: 0),
        Case(profile: "share-extension.plist", operation: .update, group: Fixtures.sharedGroup, expected: 0),
        Case(profile: "share-extension.plist", operation: .delete, group: nil, expected: 0),
        Case(profile: "share-extension.plist", operation: .add, group: Fixtures.sharedGroup, expected: -25299),
        Case(profile: "legacy-prefix.plist", operation: .find, group: Fixtures.sharedGroup, expected: 0),
        // App groups are access groups (except for App Clips).
        Case(profile: "widget.plist", operation: .add, group: "group.com.example", expected: 0),
        Case(profile: "app-clip.plist", operation: .add, group: "group.com.example", expected: -34018),
    ]

    @Test(arguments: cases)
    func status(of testCase: Case) throws {
        let keychain = try TemporaryKeychain()
        try keychain.add([("svce", "api"), ("acct", "ci"), ("agrp", Fixtures.sharedGroup)], as: try Fixtures.caller("app.plist"))
        let caller = try Fixtures.caller(testCase.profile)
        var pairs: [(String, String)] = [("svce", "api"), ("acct", "ci")]
        if let group = testCase.group { pairs.append(("agrp", group)) }
        let request = TemporaryKeychain.request(pairs)
        let result = KeychainCoreTests.status {
            switch testCase.operation {
            case .add: _ = try keychain.keychain.add(request, secret: SecretBytes(copying: [1]), caller: caller)
            case .find: _ = try keychain.keychain.find(request, caller: caller)
            case .update: _ = try keychain.keychain.update(request, changes: [("labl", "x")], secret: nil, caller: caller)
            case .delete: _ = try keychain.keychain.delete(request, caller: caller)
            }
        }
        #expect(result == testCase.expected)
    }

    @Test func updateMayMoveAnItemOnlyToAWritableGroup() throws {
        let keychain = try TemporaryKeychain()
        let app = try Fixtures.caller("app.plist")
        try keychain.add([("svce", "api")], as: app)
        let refused = KeychainCoreTests.status {
            _ = try keychain.keychain.update(
                TemporaryKeychain.request([("svce", "api")]), changes: [("agrp", "com.apple.token")], secret: nil, caller: app)
        }
        #expect(refused == -34018)
        _ = try keychain.keychain.update(
            TemporaryKeychain.request([("svce", "api")]), changes: [("agrp", Fixtures.sharedGroup)], secret: nil, caller: app)
        let moved = try keychain.keychain.find(
            TemporaryKeychain.request([("svce", "api")]), caller: try Fixtures.caller("share-extension.plist"))
        #expect(moved.items.first?.item.accessGroup == Fixtures.sharedGroup)
    }

    @Test func refusalHintNamesTheGroupsAndThePrefixedGroupMeant() throws {
        let keychain = try TemporaryKeychain()
        do {
            try keychain.add([("svce", "api"), ("agrp", "com.example.shared")], as: try Fixtures.caller("app.plist"))
            Issue.record("added")
        } catch let error as KeychainError {
            #expect(error.status == .missingEntitlement)
            #expect(error.hint.contains("Did you mean '\(Fixtures.sharedGroup)'"))
            #expect(error.hint.contains("group.com.example"))
        }
        do {
            try keychain.add([("svce", "api"), ("agrp", "$(AppIdentifierPrefix)com.example.shared")], as: try Fixtures.caller("app.plist"))
            Issue.record("added")
        } catch let error as KeychainError {
            #expect(error.status == .missingEntitlement)
            #expect(error.hint.contains("resolved only inside profiles"))
        }
    }

    /// The wrong prefix forms of cases G11, G12 and G17 each get the group meant and why.
    @Test(arguments: [
        ("SKMME9E2Y8.group.com.example", "Did you mean 'group.com.example'? App groups carry no Team ID prefix on iOS."),
        ("SKMME9E2Y8.SKMME9E2Y8.com.example.shared", "Did you mean 'SKMME9E2Y8.com.example.shared'? The App ID prefix is written twice."),
        ("com.apple.token", "Only macOS grants com.apple.token without an entitlement"),
        ("ZZZZZ99999.group.com.other", "its readable groups are"),
    ])
    func refusalHintNamesTheWrongPrefixForm(_ group: String, _ hint: String) throws {
        let keychain = try TemporaryKeychain()
        do {
            _ = try keychain.keychain.find(TemporaryKeychain.request([("agrp", group)]), caller: try Fixtures.caller("app.plist"))
            Issue.record("found")
        } catch let error as KeychainError {
            #expect(error.status == .missingEntitlement)
            #expect(error.hint.contains(hint), "\(error.hint)")
            if group.hasPrefix("ZZZZZ") { #expect(!error.hint.contains("Did you mean")) }
        }
    }
}
