import Foundation
import Testing

@testable import KeychainCore

/// SecAccessControl as keychainctl simulates it (docs/FIDELITY.md).
@Suite struct AccessControlTests {
    static let app = try! Fixtures.caller("app.plist")

    static func flags(_ text: String) throws -> AccessControl.Flags { try AccessControl.Flags(parsing: text) }

    /// Every combination Apple refuses is errSecParam; the rest are accepted.
    @Test(arguments: [
        ("or,and,biometry-any", false), ("biometry-any,biometry-current-set", false), ("user-presence,or", false),
        ("user-presence,device-passcode", false), ("user-presence,biometry-any", false), ("user-presence,and", false),
        ("biometry-any,device-passcode,or", true), ("biometry-any,device-passcode,and", true),
        ("biometry-any,device-passcode,and,application-password", true), ("user-presence,application-password", true),
        ("user-presence,private-key-usage", true), ("", true), ("application-password", true), ("device-passcode,biometry-any", true),
    ])
    func createWithFlags(_ text: String, _ valid: Bool) throws {
        let result = status {
            _ = try AccessControl(protection: .whenUnlocked, flags: try Self.flags(text), biometrySet: [UInt8](repeating: 7, count: 16))
        }
        #expect(result == (valid ? 0 : -50), "\(text)")
    }

    @Test func unknownWordsAreParameterErrors() {
        for text in ["face-id", "biometry-any,,or", "BIOMETRY-ANY", "biometry-any;or", "\u{1b}[31m"] {
            #expect(status { _ = try Self.flags(text) } == -50, "\(text)")
        }
        #expect(status { _ = try Self.flags(" biometry-any , or ") } == 0)
    }

    /// Apple's `security` text form, and only the exact text keychainctl writes parses back.
    @Test func textForm() throws {
        let set = [UInt8](repeating: 0xab, count: 16)
        let cases: [(String, Accessibility, String)] = [
            ("", .whenUnlocked, "ak;dacl(true)"),
            ("application-password", .afterFirstUnlock, "ck;dacl(true);prp(true)"),
            ("user-presence", .whenUnlocked, "ak;od(cpo(DeviceOwnerAuthentication));odel(true);oe(true)"),
            (
                "biometry-any,device-passcode,or", .whenPasscodeSetThisDeviceOnly,
                "akpu;od(cbio(pbioc())cup(true)pkofn(1));odel(true);oe(true)"
            ),
            ("biometry-any,device-passcode", .whenUnlocked, "ak;od(cbio(pbioc())cup(true)pkofn(2));odel(true);oe(true)"),
            ("biometry-current-set", .whenUnlocked, "ak;od(cbio(pbioh(\(String(repeating: "ab", count: 16)))));odel(true);oe(true)"),
            (
                "user-presence,private-key-usage", .always,
                "dk;oa(true);ock(cpo(DeviceOwnerAuthentication));odel(true);osgn(cpo(DeviceOwnerAuthentication))"
            ),
        ]
        for (text, protection, expected) in cases {
            let control = try AccessControl(protection: protection, flags: Self.flags(text), biometrySet: set)
            #expect(control.text == expected)
            #expect(AccessControl(stored: expected)?.text == expected)
        }
        #expect(AccessControl(protection: .always).text == "dk")
        for garbage in [
            "", "zz", "ak;", "ak;od(x);odel(true);oe(true)", "ak;od(cbio(pbioh(00)));odel(true);oe(true)", "ak;dacl(true)x",
            "ak;od(cup(true));odel(true);oe(false)", "ak;od(cup(true)cup(true));odel(true);oe(true)",
            String(repeating: "(", count: 100_000),
        ] {
            #expect(AccessControl(stored: garbage) == nil, "\(garbage.prefix(40))")
        }
    }

    /// A keychain with a plain item, a protected one (`flags`) and another plain one, all
    /// `svce=api`, answered as `answer` says (`nil`: nobody to ask), counting the questions.
    final class Fixture {
        let temporary: TemporaryKeychain
        let keychain: Keychain
        var asked = 0

        init(_ flags: String, accessible: String? = nil, answer: Authentication.Answer?, ui: Authentication.UI = .allow) throws {
            temporary = try TemporaryKeychain()
            try temporary.add([("svce", "api"), ("acct", "plain1")], secret: "one", as: AccessControlTests.app)
            var request = TemporaryKeychain.request([("svce", "api"), ("acct", "guarded")])
            request.accessControl = AccessControlRequest(flags: flags, protection: accessible)
            temporary.keychain.authentication.applicationPassword = { _ in SecretBytes(copying: Array("pw".utf8)) }
            _ = try temporary.keychain.add(request, secret: SecretBytes(copying: Array("two".utf8)), caller: AccessControlTests.app)
            try temporary.add([("svce", "api"), ("acct", "plain2")], secret: "three", as: AccessControlTests.app)
            keychain = try temporary.reopen()
            keychain.authentication = Authentication(ui: ui)
            if let answer {
                keychain.authentication.answer = { [unowned self] _ in
                    asked += 1
                    return answer
                }
            }
        }

        func findAll(returns: [String] = ["attributes"]) throws -> [String] {
            try keychain.find(TemporaryKeychain.request([("svce", "api")], limit: "all", returns: returns), caller: AccessControlTests.app)
                .items.map { $0.item.attributes["acct"]!.stringValue! }
        }
    }

    /// Every read of a protected item asks, attribute-only and existence checks included,
    /// once per item per call; delete never asks.
    @Test func everyReadAsksOnceAndDeleteNever() throws {
        let fixture = try Fixture("biometry-any", answer: .approve)
        #expect(try fixture.findAll(returns: ["data"]).count == 3)
        #expect(fixture.asked == 1)
        #expect(try fixture.findAll(returns: ["persistent-ref"]).count == 3)
        #expect(fixture.asked == 2)
        _ = try fixture.keychain.update(
            TemporaryKeychain.request([("svce", "api")]), changes: [("labl", "x")], secret: nil, caller: Self.app)
        #expect(fixture.asked == 3)
        let deleting = try Fixture("biometry-any", answer: nil)
        #expect(try deleting.keychain.delete(TemporaryKeychain.request([("svce", "api")]), caller: Self.app).count == 3)
    }

    /// No partial result. Cancelled or failed, the call returns nothing and changes nothing.
    @Test(arguments: [(Authentication.Answer.cancel, Int32(-128)), (.fail, -25293)])
    func refusedAuthenticationFailsTheWholeCall(_ answer: Authentication.Answer, _ expected: Int32) throws {
        let fixture = try Fixture("device-passcode", answer: answer)
        var handed = 0
        #expect(
            status {
                _ = try fixture.keychain.find(
                    TemporaryKeychain.request([("svce", "api")], limit: "all", returns: ["data"]), caller: Self.app
                ) { _, _ in handed += 1 }
            } == expected)
        #expect(handed == 0)
        #expect(
            status {
                _ = try fixture.keychain.update(
                    TemporaryKeychain.request([("svce", "api")]), changes: [("labl", "changed")], secret: nil, caller: Self.app)
            } == expected)
        let labels = try fixture.temporary.reopen().find(
            TemporaryKeychain.request([("svce", "api"), ("acct", "plain1")]), caller: Self.app)
        #expect(labels.items[0].item.attributes["labl"] == nil)
    }

    /// kSecUseAuthenticationUI: fail is -25308 however the user would answer; skip leaves the
    /// protected item out (and asks nobody).
    @Test func authenticationUI() throws {
        let failing = try Fixture("biometry-any", answer: .approve, ui: .fail)
        #expect(status { _ = try failing.findAll() } == -25308)
        #expect(failing.asked == 0)
        let skipping = try Fixture("biometry-any", answer: .approve, ui: .skip)
        #expect(try skipping.findAll() == ["plain1", "plain2"])
        #expect(
            status { _ = try skipping.keychain.find(TemporaryKeychain.request([("acct", "guarded")]), caller: Self.app) } == -25300)
        // limit one takes the first item that needs no authentication.
        let first = try skipping.keychain.find(TemporaryKeychain.request([("svce", "api")], limit: "2"), caller: Self.app)
        #expect(first.items.map { $0.item.attributes["acct"]!.stringValue! } == ["plain1", "plain2"])
        #expect(skipping.asked == 0)
    }

    /// Pdmn beside an access control and an access control with sync are -50, and
    /// `accc` cannot be given or matched as an attribute.
    @Test func conflictingAttributes() throws {
        let keychain = try TemporaryKeychain()
        func add(_ pairs: [(String, String)], flags: String = "biometry-any") -> Int32 {
            var request = TemporaryKeychain.request(pairs)
            request.accessControl = AccessControlRequest(flags: flags)
            return status { _ = try keychain.keychain.add(request, secret: SecretBytes(copying: [1]), caller: Self.app) }
        }
        #expect(add([("svce", "a"), ("pdmn", "ak")]) == -50)
        #expect(add([("svce", "a"), ("sync", "yes")]) == -50)
        #expect(add([("svce", "a"), ("sync", "yes")], flags: "") == -50)
        #expect(add([("svce", "a"), ("sync", "no")]) == 0)
        #expect(add([("svce", "b")], flags: "private-key-usage") == -50)
        #expect(status { try keychain.add([("svce", "c"), ("accc", "ak")], as: Self.app) } == -50)
        #expect(status { _ = try keychain.keychain.find(TemporaryKeychain.request([("accc", "ak")]), caller: Self.app) } == -50)
        // On update only the changes are looked at: a synchronizable query is allowed.
        let update = status {
            _ = try keychain.keychain.update(
                TemporaryKeychain.request([("svce", "x")]), changes: [("sync", "yes")], secret: nil, caller: Self.app,
                accessControl: AccessControlRequest(flags: "biometry-any"))
        }
        #expect(update == -50)
    }

    /// Binding at add needs the device to be able to satisfy the constraint (-25293).
    @Test func addBindsToTheDevice() throws {
        let keychain = try TemporaryKeychain()
        func add(_ flags: String) -> Int32 {
            var request = TemporaryKeychain.request([("svce", flags)])
            request.accessControl = AccessControlRequest(flags: flags)
            return status { _ = try keychain.keychain.add(request, secret: SecretBytes(copying: [1]), caller: Self.app) }
        }
        _ = try keychain.keychain.changeDevice(.biometryRemove)
        #expect(add("biometry-any") == -25293)
        #expect(add("biometry-current-set") == -25293)
        #expect(add("user-presence") == 0)
        #expect(add("biometry-any,device-passcode,or") == 0)
        _ = try keychain.keychain.changeDevice(.passcodeRemove)
        #expect(add("device-passcode") == -25293)
        #expect(add("user-presence,application-password") == -25293)
        _ = try keychain.keychain.changeDevice(.biometryEnroll)
        #expect(add("user-presence,application-password") == -25308)  // no application password to be had
        #expect(add("biometry-any") == 0)
    }

    /// Re-enrolling invalidates (deletes) biometry-current-set items; biometry-any items
    /// survive, fail while no biometry is enrolled, and work again once it is.
    @Test func biometryChangesInvalidateTheCurrentSetOnly() throws {
        let current = try Fixture("biometry-current-set", answer: .approve)
        let any = try Fixture("biometry-any", answer: .approve)
        #expect(try current.keychain.invalidatedCount(by: .biometryChange) == 1)
        #expect(try current.keychain.changeDevice(.biometryChange).invalidated == 1)
        #expect(try current.findAll() == ["plain1", "plain2"])
        #expect(try any.keychain.changeDevice(.biometryChange).invalidated == 0)
        #expect(try any.findAll().count == 3)
        #expect(try any.keychain.changeDevice(.biometryRemove).invalidated == 0)
        #expect(status { _ = try any.findAll() } == -25293)
        _ = try any.keychain.changeDevice(.biometryEnroll)
        #expect(try any.findAll().count == 3)
    }

    /// The application password encrypts the secret: right opens, wrong is -25293, none
    /// is -25308; the call asks for it once.
    @Test func applicationPassword() throws {
        let fixture = try Fixture("application-password", answer: nil)
        var given = "pw"
        var asked = 0
        fixture.keychain.authentication.applicationPassword = { _ in
            asked += 1
            return SecretBytes(copying: Array(given.utf8))
        }
        let found = try fixture.keychain.find(
            TemporaryKeychain.request([("acct", "guarded")], limit: "all", returns: ["data"]), caller: Self.app)
        #expect(found.items.map { $0.secret!.string } == ["two"])
        #expect(asked == 1)
        given = "wrong"
        let other = try fixture.temporary.reopen()
        other.authentication.applicationPassword = fixture.keychain.authentication.applicationPassword
        #expect(status { _ = try other.find(TemporaryKeychain.request([("acct", "guarded")]), caller: Self.app) } == -25293)
        let none = try fixture.temporary.reopen()
        #expect(status { _ = try none.find(TemporaryKeychain.request([("acct", "guarded")]), caller: Self.app) } == -25308)
    }

    /// Update replaces the access control (none: the protection alone); a new
    /// accessibility alone drops it, as Apple's update does.
    @Test func updateSetsAndDropsAccessControl() throws {
        let fixture = try Fixture("device-passcode", answer: .approve)
        func accc() throws -> String {
            try fixture.keychain.find(TemporaryKeychain.request([("acct", "guarded")]), caller: Self.app).items[0].item.attributes["accc"]!
                .stringValue!
        }
        #expect(try accc() == "ak;od(cup(true));odel(true);oe(true)")
        _ = try fixture.keychain.update(
            TemporaryKeychain.request([("acct", "guarded")]), changes: [], secret: nil, caller: Self.app,
            accessControl: AccessControlRequest(flags: "biometry-any", protection: "ck"))
        #expect(try accc() == "ck;od(cbio(pbioc()));odel(true);oe(true)")
        _ = try fixture.keychain.update(
            TemporaryKeychain.request([("acct", "guarded")]), changes: [("pdmn", "ck")], secret: nil, caller: Self.app)
        #expect(try accc() == "ck")
        let asked = fixture.asked
        _ = try fixture.keychain.find(TemporaryKeychain.request([("acct", "guarded")], returns: ["data"]), caller: Self.app)
        #expect(fixture.asked == asked)
        fixture.keychain.authentication.applicationPassword = { _ in SecretBytes(copying: Array("pw".utf8)) }
        _ = try fixture.keychain.update(
            TemporaryKeychain.request([("acct", "guarded")]), changes: [], secret: nil, caller: Self.app,
            accessControl: AccessControlRequest(flags: "application-password"))
        let reopened = try fixture.temporary.reopen()
        #expect(status { _ = try reopened.find(TemporaryKeychain.request([("acct", "guarded")]), caller: Self.app) } == -25308)
    }

    /// The access control is bound into the row: an edit by someone without the key (removing it,
    /// adding one to a plain item, swapping two) makes the row damaged, never readable unasked.
    @Test func editingTheColumnDamagesTheRow() throws {
        let fixture = try Fixture("biometry-any", answer: nil)
        let connection = fixture.keychain.store.connection
        try connection.execute("UPDATE genp SET accc = pdmn")
        #expect(
            status { _ = try fixture.temporary.reopen().find(TemporaryKeychain.request([("acct", "guarded")]), caller: Self.app) } == -26275
        )
        try connection.execute("UPDATE genp SET accc = 'ak;od(cbio(pbioc()));odel(true);oe(true)'")
        let opened = try fixture.temporary.reopen()
        #expect(status { _ = try opened.find(TemporaryKeychain.request([("acct", "plain1")]), caller: Self.app) } == -26275)
        try connection.execute("UPDATE genp SET accc = 'ak;dacl(true)' WHERE rowid = 1")
        #expect(
            status { _ = try fixture.temporary.reopen().find(TemporaryKeychain.request([("acct", "plain1")]), caller: Self.app) } == -26275)
    }
}
