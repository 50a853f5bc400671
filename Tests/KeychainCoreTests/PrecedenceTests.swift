import Testing

@testable import KeychainCore

/// docs/FIDELITY.md, precedence: when several things are wrong, the status SecItemServer.c checks first.
@Suite struct PrecedenceTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let profile: String
        let operation: AccessMatrixTests.Operation
        let itemClass: String?
        let attributes: [(String, String)]
        var changes: [(String, String)] = [("labl", "x")]
        var persistentRef = false
        /// `--limit`'s word, as the command line's edge parses it (an invalid one stays one).
        var limit: String? = nil
        /// The device state the call runs in (the existing item, `svce=api`, is when-unlocked).
        var device: DeviceState.Lock = .unlocked
        /// `--access-control` (add) or `--set-access-control` (update).
        var accessControl: String? = nil
        var ui: Authentication.UI = .allow
        /// The user's answer; `nil`: nobody to ask.
        var answer: Authentication.Answer? = nil
        let expected: Int32
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        // add: no writable group → bad request → explicit agrp → duplicate
        Case(
            name: "add: no group beats a bad class", profile: "no-entitlements.plist", operation: .add, itemClass: "bogus", attributes: [],
            expected: -34018),
        Case(
            name: "add: bad class beats a foreign group", profile: "app.plist", operation: .add, itemClass: "bogus",
            attributes: [("agrp", "X.other")], expected: -25306),
        Case(
            name: "add: unknown attribute beats a foreign group", profile: "app.plist", operation: .add, itemClass: nil,
            attributes: [("srvr", "h"), ("agrp", "X.other")], expected: -25303),
        Case(
            name: "add: bad accessibility beats a foreign group", profile: "app.plist", operation: .add, itemClass: nil,
            attributes: [("pdmn", "sometimes"), ("agrp", "X.other")], expected: -50),
        Case(
            name: "add: foreign group beats duplicate", profile: "app.plist", operation: .add, itemClass: nil,
            attributes: [("svce", "api"), ("agrp", "X.other")], expected: -34018),
        Case(
            name: "add: duplicate", profile: "app.plist", operation: .add, itemClass: nil, attributes: [("svce", "api")], expected: -25299),
        // find: no readable group → bad request → explicit agrp → pref+attributes → none
        Case(
            name: "find: no group beats a bad class", profile: "no-entitlements.plist", operation: .find, itemClass: "bogus",
            attributes: [], expected: -34018),
        Case(
            name: "find: bad request beats a foreign group", profile: "app.plist", operation: .find, itemClass: nil,
            attributes: [("zzzz", "1"), ("agrp", "X.other")], expected: -25303),
        Case(
            name: "find: foreign group beats pref+attributes", profile: "app.plist", operation: .find, itemClass: nil,
            attributes: [("agrp", "X.other")], persistentRef: true, expected: -34018),
        Case(
            name: "find: pref with attributes", profile: "app.plist", operation: .find, itemClass: nil, attributes: [("svce", "api")],
            persistentRef: true, expected: -50),
        Case(
            name: "find: none", profile: "app.plist", operation: .find, itemClass: nil, attributes: [("svce", "nothing")], expected: -25300),
        // A limit that is no limit is refused where the query is parsed, not where it was given.
        Case(
            name: "find: no group beats a bad limit", profile: "no-entitlements.plist", operation: .find, itemClass: nil,
            attributes: [("svce", "api")], limit: "zero", expected: -34018),
        Case(
            name: "find: bad limit beats a foreign group", profile: "app.plist", operation: .find, itemClass: nil,
            attributes: [("agrp", "X.other")], limit: "zero", expected: -50),
        // update: no writable group → explicit agrp in query → bad request → agrp in changes → none
        Case(
            name: "update: no group beats everything", profile: "token-reader.plist", operation: .update, itemClass: "bogus",
            attributes: [], expected: -34018),
        Case(
            name: "update: query group beats a bad class", profile: "app.plist", operation: .update, itemClass: "bogus",
            attributes: [("agrp", "X.other")], expected: -34018),
        Case(
            name: "update: bad request beats a foreign target group", profile: "app.plist", operation: .update, itemClass: nil,
            attributes: [("zzzz", "1")], changes: [("agrp", "X.other")], expected: -25303),
        Case(
            name: "update: foreign target group beats none", profile: "app.plist", operation: .update, itemClass: nil,
            attributes: [("svce", "nothing")], changes: [("agrp", "X.other")], expected: -34018),
        Case(
            name: "update: nothing to change", profile: "app.plist", operation: .update, itemClass: nil, attributes: [("svce", "api")],
            changes: [], expected: -50),
        Case(
            name: "update: none", profile: "app.plist", operation: .update, itemClass: nil, attributes: [("svce", "nothing")],
            expected: -25300),
        // delete: no writable group → explicit agrp → bad request → none
        Case(
            name: "delete: no group beats a bad class", profile: "no-entitlements.plist", operation: .delete, itemClass: "bogus",
            attributes: [], expected: -34018),
        Case(
            name: "delete: foreign group beats a bad class", profile: "app.plist", operation: .delete, itemClass: "bogus",
            attributes: [("agrp", "X.other")], expected: -34018),
        Case(name: "delete: bad class", profile: "app.plist", operation: .delete, itemClass: "bogus", attributes: [], expected: -25306),
        Case(
            name: "delete: none", profile: "app.plist", operation: .delete, itemClass: nil, attributes: [("svce", "nothing")],
            expected: -25300),
        // The lock (docs/FIDELITY.md): everything decided before the database wins over it; then the
        // lock beats a duplicate; a delete of a locked row succeeds.
        Case(
            name: "locked add: foreign group beats the lock", profile: "app.plist", operation: .add, itemClass: nil,
            attributes: [("svce", "api"), ("agrp", "X.other")], device: .locked, expected: -34018),
        Case(
            name: "locked add: bad accessibility beats the lock", profile: "app.plist", operation: .add, itemClass: nil,
            attributes: [("svce", "api"), ("pdmn", "sometimes")], device: .locked, expected: -50),
        Case(
            name: "locked add: the lock beats a duplicate", profile: "app.plist", operation: .add, itemClass: nil,
            attributes: [("svce", "api")], device: .locked, expected: -25308),
        Case(
            name: "locked add: an open class colliding with a locked item is a duplicate", profile: "app.plist", operation: .add,
            itemClass: nil, attributes: [("svce", "api"), ("pdmn", "ck")], device: .locked, expected: -25299),
        Case(
            name: "locked find: foreign group beats the lock", profile: "app.plist", operation: .find, itemClass: nil,
            attributes: [("svce", "api"), ("agrp", "X.other")], device: .locked, expected: -34018),
        Case(
            name: "locked find: bad request beats the lock", profile: "app.plist", operation: .find, itemClass: nil,
            attributes: [("svce", "api"), ("zzzz", "1")], device: .locked, expected: -25303),
        Case(
            name: "locked find: another app's locked item is not found", profile: "widget.plist", operation: .find, itemClass: nil,
            attributes: [("svce", "api")], device: .locked, expected: -25300),
        Case(
            name: "locked find: the lock", profile: "app.plist", operation: .find, itemClass: nil, attributes: [("svce", "api")],
            device: .locked, expected: -25308),
        Case(
            name: "locked update: foreign target group beats the lock", profile: "app.plist", operation: .update, itemClass: nil,
            attributes: [("svce", "api")], changes: [("agrp", "X.other")], device: .locked, expected: -34018),
        Case(
            name: "locked update: the lock", profile: "app.plist", operation: .update, itemClass: nil, attributes: [("svce", "api")],
            device: .beforeFirstUnlock, expected: -25308),
        Case(
            name: "locked delete: succeeds", profile: "app.plist", operation: .delete, itemClass: nil, attributes: [("svce", "api")],
            device: .locked, expected: 0),
        // Access control (docs/FIDELITY.md): the client-side checks beat everything; a protected item
        // (`svce=guarded`, biometry-any, when-unlocked) asks on every read and change, never on delete.
        Case(
            name: "add: a bad access-control word beats no group", profile: "no-entitlements.plist", operation: .add, itemClass: "bogus",
            attributes: [], accessControl: "face", expected: -50),
        Case(
            name: "add: an access control with sync beats no group", profile: "no-entitlements.plist", operation: .add, itemClass: nil,
            attributes: [("sync", "yes")], accessControl: "biometry-any", expected: -50),
        Case(
            name: "add: UI skip beats no group", profile: "no-entitlements.plist", operation: .add, itemClass: nil, attributes: [],
            ui: .skip, expected: -50),
        Case(
            name: "update: UI skip beats no group", profile: "token-reader.plist", operation: .update, itemClass: nil, attributes: [],
            ui: .skip, expected: -50),
        Case(
            name: "delete: UI skip beats no group", profile: "no-entitlements.plist", operation: .delete, itemClass: nil, attributes: [],
            ui: .skip, expected: -50),
        Case(
            name: "update: access control with sync beats a foreign group", profile: "app.plist", operation: .update, itemClass: nil,
            attributes: [("agrp", "X.other")], changes: [("sync", "yes")], accessControl: "biometry-any", expected: -50),
        Case(
            name: "add: no group beats pdmn with an access control", profile: "no-entitlements.plist", operation: .add, itemClass: nil,
            attributes: [("pdmn", "ak")], accessControl: "biometry-any", expected: -34018),
        Case(
            name: "add: pdmn with an access control", profile: "app.plist", operation: .add, itemClass: nil,
            attributes: [("svce", "new"), ("pdmn", "ak")], accessControl: "biometry-any", expected: -50),
        Case(
            name: "add: the lock beats binding an access control", profile: "app.plist", operation: .add, itemClass: nil,
            attributes: [("svce", "new")], device: .locked, accessControl: "biometry-any", expected: -25308),
        Case(
            name: "find: a protected item with nobody to ask", profile: "app.plist", operation: .find, itemClass: nil,
            attributes: [("svce", "guarded")], expected: -25308),
        Case(
            name: "find: a protected item with UI fail", profile: "app.plist", operation: .find, itemClass: nil,
            attributes: [("svce", "guarded")], ui: .fail, answer: .approve, expected: -25308),
        Case(
            name: "find: UI skip leaves it out", profile: "app.plist", operation: .find, itemClass: nil, attributes: [("svce", "guarded")],
            ui: .skip, answer: .approve, expected: -25300),
        Case(
            name: "find: cancelled", profile: "app.plist", operation: .find, itemClass: nil, attributes: [("svce", "guarded")],
            answer: .cancel, expected: -128),
        Case(
            name: "find: failed", profile: "app.plist", operation: .find, itemClass: nil, attributes: [("svce", "guarded")],
            answer: .fail, expected: -25293),
        Case(
            name: "find: approved", profile: "app.plist", operation: .find, itemClass: nil, attributes: [("svce", "guarded")],
            answer: .approve, expected: 0),
        Case(
            name: "locked find: the lock beats authentication", profile: "app.plist", operation: .find, itemClass: nil,
            attributes: [("svce", "guarded")], device: .locked, answer: .approve, expected: -25308),
        Case(
            name: "locked find: UI skip does not help against the lock", profile: "app.plist", operation: .find, itemClass: nil,
            attributes: [("svce", "guarded")], device: .locked, ui: .skip, expected: -25308),
        Case(
            name: "find: another app's protected item is not found", profile: "widget.plist", operation: .find, itemClass: nil,
            attributes: [("svce", "guarded")], expected: -25300),
        Case(
            name: "update: a protected item, cancelled", profile: "app.plist", operation: .update, itemClass: nil,
            attributes: [("svce", "guarded")], answer: .cancel, expected: -128),
        Case(
            name: "update: a foreign target group beats authentication", profile: "app.plist", operation: .update, itemClass: nil,
            attributes: [("svce", "guarded")], changes: [("agrp", "X.other")], expected: -34018),
        Case(
            name: "delete: a protected item needs no authentication", profile: "app.plist", operation: .delete, itemClass: nil,
            attributes: [("svce", "guarded")], expected: 0),
        Case(
            name: "add: an existing protected item is a duplicate, unasked", profile: "app.plist", operation: .add, itemClass: nil,
            attributes: [("svce", "guarded")], expected: -25299),
    ]

    @Test(arguments: cases)
    func firstFailureWins(_ testCase: Case) throws {
        let keychain = try TemporaryKeychain()
        let app = try Fixtures.caller("app.plist")
        let existing = try keychain.add([("svce", "api")], as: app)
        var guarded = TemporaryKeychain.request([("svce", "guarded")])
        guarded.accessControl = AccessControlRequest(flags: "biometry-any")
        _ = try keychain.keychain.add(guarded, secret: SecretBytes(copying: [2]), caller: app)
        let caller = try Fixtures.caller(testCase.profile)
        let opened = try Keychain(path: keychain.path, credential: .key(keychain.key), deviceState: testCase.device)
        let answer = testCase.answer
        opened.authentication = Authentication(ui: testCase.ui, answer: answer.map { given in { _ in given } })
        var request = TemporaryKeychain.request(testCase.attributes, class: testCase.itemClass, limit: testCase.limit)
        if testCase.persistentRef { request.persistentRef = existing.persistentRef.base64 }
        let accessControl = testCase.accessControl.map { AccessControlRequest(flags: $0) }
        if testCase.operation == .add { request.accessControl = accessControl }
        let result = status {
            switch testCase.operation {
            case .add: _ = try opened.add(request, secret: SecretBytes(copying: [1]), caller: caller)
            case .find: _ = try opened.find(request, caller: caller)
            case .update:
                _ = try opened.update(
                    request, changes: testCase.changes.map { (code: $0.0, value: $0.1) }, secret: nil, caller: caller,
                    accessControl: accessControl)
            case .delete: _ = try opened.delete(request, caller: caller)
            }
        }
        #expect(result == testCase.expected)
    }

    /// The cases explain can state (no access control, authentication answer or changes of the
    /// update's own: explain takes none of them): it predicts the status the call returns, since
    /// both start with the same `preflight`.
    static let explainable = cases.filter {
        $0.accessControl == nil && $0.answer == nil && $0.ui == .allow && $0.changes.count == 1 && $0.changes[0].0 == "labl"
            && !$0.attributes.contains { $0 == ("svce", "guarded") }
    }

    @Test(arguments: explainable)
    func explainPredictsWhatTheCallReturns(_ testCase: Case) throws {
        let keychain = try TemporaryKeychain()
        let app = try Fixtures.caller("app.plist")
        let existing = try keychain.add([("svce", "api")], as: app)
        let opened = try Keychain(path: keychain.path, credential: .key(keychain.key), deviceState: testCase.device)
        var request = TemporaryKeychain.request(testCase.attributes, class: testCase.itemClass, limit: testCase.limit)
        if testCase.persistentRef { request.persistentRef = existing.persistentRef.base64 }
        let operation = Explanation.Operation(rawValue: testCase.operation.rawValue)!
        let predicted = status {
            let explanation = try opened.explain(operation, request, caller: try Fixtures.caller(testCase.profile))
            if let refusal = explanation.predicted { throw refusal }
        }
        #expect(predicted == testCase.expected)
    }

    @Test func mostCasesAreExplainable() {
        #expect(Self.explainable.count >= 25, "\(Self.explainable.count) of \(Self.cases.count)")
    }
}
