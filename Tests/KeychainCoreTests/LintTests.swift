import Testing

@testable import KeychainCore

/// Each lint rule fires on the mistake it names, and not on correct files.
@Suite struct LintTests {
    /// An XML entitlements document from `(key, value)` pairs; a value is a String, a [String], a
    /// Bool or any other text (put in verbatim, for non-strings).
    static func document(_ pairs: [(String, Any)], path: String = "t.plist") throws -> ProfileDocument {
        func xml(_ value: Any) -> String {
            switch value {
            case let text as String: "<string>\(text)</string>"
            case let flag as Bool: flag ? "<true/>" : "<false/>"
            case let list as [Any]: "<array>" + list.map(xml).joined() + "</array>"
            case let raw as Raw: raw.text
            default: ""
            }
        }
        let body = pairs.map { "<key>\($0.0)</key>\(xml($0.1))" }.joined()
        return try ProfileDocument.decode(Array("<plist version=\"1.0\"><dict>\(body)</dict></plist>".utf8), path: path)
    }

    /// Verbatim plist text inside a document.
    struct Raw { let text: String }

    static let now = ISO8601.parse("2026-06-01T00:00:00Z")!

    static func target(_ name: String, _ fixture: String, provisioning: String? = nil) throws -> LintTarget {
        let profile = try provisioning.map { try ProvisioningProfile(try ProfileDocument.load(path: Fixtures.path($0)), path: $0) }
        return LintTarget(
            name: name, claimsPath: fixture, claims: try ProfileDocument.load(path: Fixtures.path(fixture)), provisioning: profile)
    }

    static func lint(_ targets: [LintTarget], platform: Platform? = nil, now: Int64 = now, configure: (inout Linter) -> Void = { _ in })
        -> [LintFinding]
    {
        var linter = Linter(targets: targets, now: now)
        linter.platform = platform
        configure(&linter)
        return linter.run()
    }

    static func ids(_ findings: [LintFinding], _ severity: LintRule.Severity? = nil) -> Set<String> {
        Set(findings.filter { severity == nil || $0.severity == severity }.map(\.rule.rawValue))
    }

    @Test func theSeedTargetsSignedByTheirProfilesHaveNoErrors() throws {
        let findings = Self.lint([
            try Self.target("app", "app.plist", provisioning: "dev-app.mobileprovision"),
            try Self.target("share", "share-extension.plist", provisioning: "dev-share.mobileprovision"),
            try Self.target("widget", "widget.plist", provisioning: "dev-widget.mobileprovision"),
        ])
        #expect(Self.ids(findings, .error).isEmpty, "\(findings.map(\.message))")
        #expect(Self.ids(findings, .warning) == ["KC003", "KC012"])
        // Most severe first.
        #expect(findings.map(\.severity) == findings.map(\.severity).sorted())
    }

    @Test func kc001GroupsWithoutAPrefixNameTheFix() throws {
        let claims = try Self.document([
            ("application-identifier", "SKMME9E2Y8.com.example.app"),
            ("keychain-access-groups", ["SKMME9E2Y8.com.example.app", "com.example.shared", "group.com.example"]),
        ])
        let findings = Self.lint([LintTarget(name: "app", claimsPath: "app.entitlements", claims: claims)]) {
            $0.codeGroups = ["com.example.shared", "group.com.example", "com.apple.token"]
        }
        let kc001 = findings.filter { $0.rule == .kc001 }
        #expect(kc001.map(\.index) == [1, 2, nil])  // the app group passed in code is fine
        #expect(kc001[0].fix?.contains("\"SKMME9E2Y8.com.example.shared\" in code") == true)
        #expect(kc001[0].runtime?.status == -34018)
        #expect(kc001[1].message.contains("app group"))
        #expect(kc001[2].file == Linter.codeFile)
    }

    @Test func kc002VariablesAreErrorsWhereNothingExpandsThem() throws {
        let signed = try Self.document([("keychain-access-groups", ["$(AppIdentifierPrefix)com.example.shared"])])
        let signedFindings = Self.lint([LintTarget(name: "a", claimsPath: "a.codesign.txt", claims: signed)])
        #expect(signedFindings.first { $0.rule == .kc002 }?.severity == .error)
        // A source file whose variables resolve is fine; one whose do not is an error.
        let resolvable = Self.lint([try Self.target("a", "source-variables.entitlements")]) { $0.teamID = "SKMME9E2Y8" }
        #expect(!Self.ids(resolvable).contains("KC002"))
        #expect(Self.ids(Self.lint([try Self.target("a", "unresolvable-variable.entitlements")])).contains("KC002"))
        let code = Self.lint([try Self.target("a", "app.plist")]) { $0.codeGroups = ["$(AppIdentifierPrefix)com.example.shared"] }
        #expect(code.first { $0.rule == .kc002 }?.fix?.contains("SKMME9E2Y8.com.example.shared") == true)
    }

    /// KC021: a well-formed group code passes that no target holds is -34018 for every one of them;
    /// one any target holds (or a malformed one, which KC001 reports) is not KC021.
    @Test func kc021ACodeGroupNoTargetClaims() throws {
        let findings = Self.lint([try Self.target("widget", "widget.plist"), try Self.target("app", "app.plist")]) {
            $0.codeGroups = ["SKMME9E2Y8.com.nothing", "SKMME9E2Y8.com.example.shared", "group.com.example", "com.example.shared"]
        }
        let kc021 = findings.filter { $0.rule == .kc021 }
        #expect(kc021.map(\.value) == ["SKMME9E2Y8.com.nothing"])
        #expect(kc021.first?.runtime?.status == -34018 && kc021.first?.severity == .error)
    }

    @Test func kc003AndKC012SayWhereAddsLandAndWhoCannotSeeThem() throws {
        let findings = Self.lint([try Self.target("app", "app.plist"), try Self.target("widget", "widget.plist")])
        let kc003 = findings.filter { $0.rule == .kc003 }
        #expect(kc003.count == 2)
        #expect(kc003.allSatisfy { $0.severity == .warning && $0.runtime?.status == -25300 })
        // Each finding is the writer's: its file, its target, its landing group.
        let widget = try #require(kc003.first { $0.target == "widget" })
        #expect(widget.file.hasSuffix("widget.plist"))
        #expect(widget.message.contains("\"SKMME9E2Y8.com.example.app.widget\"; app cannot read"))
        #expect(Self.ids(findings).contains("KC012"))
        // Three targets: one finding per writer, naming every reader it misses, never one per pair.
        let three = Self.lint([
            try Self.target("app", "app.plist"), try Self.target("share", "share-extension.plist"),
            try Self.target("widget", "widget.plist"),
        ]).filter { $0.rule == .kc003 }
        #expect(three.map(\.target) == ["app", "share", "widget"])
        let app = try #require(three.first)
        #expect(app.file.hasSuffix("app.plist") && app.message.contains("share, widget cannot read"))
        #expect(
            app.fix?.hasPrefix("pass group.com.example (kSecAttrAccessGroup)") == true
                && app.fix?.contains("such as SKMME9E2Y8.shared") == true)
        // No group in common at all is an error; across teams the fix is not "share a group".
        let apart = Self.lint([try Self.target("app", "app.plist"), try Self.target("other", "other-team.plist")])
        let error = try #require(apart.first { $0.rule == .kc003 && $0.severity == .error })
        #expect(error.fix?.contains("no access group crosses teams") == true)
    }

    @Test(arguments: [
        (".com.example.shared", LintRule.Severity.error), ("SKMME9E2Y8.SKMME9E2Y8.com.example", .error),
        ("skmme9e2y8.com.example", .error), ("SKMME9E2Y.com.example", .error), ("SKMME9E2Y8.group.com.example", .warning),
    ])
    func kc004MalformedPrefixes(_ group: String, _ severity: LintRule.Severity) throws {
        let claims = try Self.document([
            ("application-identifier", "SKMME9E2Y8.com.example.app"), ("keychain-access-groups", [group]),
        ])
        let findings = Self.lint([LintTarget(name: "a", claimsPath: "a.plist", claims: claims)])
        #expect(findings.filter { $0.rule == .kc004 }.map(\.severity) == [severity])
        #expect(!Self.ids(findings).contains("KC001"))
    }

    @Test func kc007PrefixesThatDiffer() throws {
        let findings = Self.lint([try Self.target("app", "app.plist"), try Self.target("legacy", "legacy-prefix.plist")])
        #expect(findings.contains { $0.rule == .kc007 && $0.severity == .error && $0.target == "legacy" })
        #expect(findings.contains { $0.rule == .kc007 && $0.severity == .warning && $0.value == "SKMME9E2Y8.com.example.shared" })
    }

    @Test func kc009ClaimsTheProfileDoesNotAllow() throws {
        let findings = Self.lint([try Self.target("app", "app.plist", provisioning: "other-team.mobileprovision.plist")])
        let kc009 = findings.filter { $0.rule == .kc009 }
        #expect(kc009.count == 4)
        #expect(kc009.contains { $0.key == "keychain-access-groups" && $0.index == 1 && $0.message.contains("ZZZZZ99999.*") })
        #expect(kc009.allSatisfy { $0.severity == .error })
    }

    @Test func kc010WildcardsInClaims() throws {
        #expect(Self.ids(Self.lint([try Self.target("a", "wildcard.plist")]), .error).contains("KC010"))
        // In a provisioning profile used as claims, TEAM.* is the allowlist's own syntax.
        #expect(!Self.ids(Self.lint([try Self.target("a", "dev-app.mobileprovision")])).contains("KC010"))
    }

    @Test func kc011SourceAndSignedDiffer() throws {
        let signed = try Self.document([
            ("application-identifier", "SKMME9E2Y8.com.example.app"), ("keychain-access-groups", ["SKMME9E2Y8.com.example.app"]),
        ])
        let source = try ProfileDocument.load(path: Fixtures.path("source-variables.entitlements"))
        let findings = Self.lint([
            LintTarget(
                name: "app", claimsPath: "app.xcent", claims: signed, sourcePath: "source-variables.entitlements", source: source)
        ])
        let kc011 = findings.filter { $0.rule == .kc011 }
        #expect(kc011.contains { $0.file == "source-variables.entitlements" && $0.value == "SKMME9E2Y8.com.example.shared" })
        #expect(kc011.contains { $0.file == "app.xcent" && $0.value == "SKMME9E2Y8.com.example.app" })
    }

    @Test func kc013AppGroupRules() throws {
        let mac = Self.lint([try Self.target("mac", "mac-app.entitlements")], platform: .macos)
        #expect(mac.contains { $0.rule == .kc013 && $0.value == "group.com.example" && $0.severity == .warning })
        // With the provisioning profile the app group counts: no finding.
        let validated = Self.lint(
            [try Self.target("mac", "mac-app.entitlements", provisioning: "dev-mac.provisionprofile")], platform: .macos)
        #expect(!validated.contains { $0.rule == .kc013 })
        let ios = try Self.document([
            ("application-identifier", "SKMME9E2Y8.a"), ("com.apple.security.application-groups", ["SKMME9E2Y8.shared"]),
        ])
        #expect(Self.ids(Self.lint([LintTarget(name: "a", claimsPath: "a.plist", claims: ios)])).contains("KC013"))
        let clip = try Self.document([
            ("application-identifier", "SKMME9E2Y8.com.example.app.Clip"), ("com.apple.developer.on-demand-install-capable", true),
            ("keychain-access-groups", ["SKMME9E2Y8.com.example.shared"]),
        ])
        let clipFindings = Self.lint([LintTarget(name: "clip", claimsPath: "clip.plist", claims: clip)])
        #expect(clipFindings.contains { $0.rule == .kc013 && $0.severity == .error && $0.runtime?.status == -34020 })
    }

    @Test func kc014And015AndKC017MacOSRules() throws {
        let appIDOnly = Self.lint([try Self.target("tool", "mac-appid-only.plist")], platform: .macos)
        #expect(appIDOnly.contains { $0.rule == .kc014 && $0.message.contains("-34018") })
        let tool = try ProfileDocument.decode(
            Array(
                "Executable=/usr/local/bin/tool\n<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>keychain-access-groups</key><array><string>SKMME9E2Y8.com.example.shared</string><string>com.apple.token</string></array></dict></plist>"
                    .utf8),
            path: "tool.txt")
        let findings = Self.lint([LintTarget(name: "tool", claimsPath: "tool.txt", claims: tool)], platform: .macos)
        #expect(findings.contains { $0.rule == .kc015 && $0.value == "/usr/local/bin/tool" })
        #expect(findings.contains { $0.rule == .kc017 && $0.index == 1 })
        #expect(!findings.contains { $0.rule == .kc014 })
        // On iOS neither applies.
        #expect(
            Self.ids(Self.lint([LintTarget(name: "tool", claimsPath: "tool.txt", claims: tool)], platform: .ios)).isDisjoint(with: [
                "KC015", "KC017",
            ]))
    }

    @Test func kc016TeamChangeNamesTheLostGroupsAndThePlan() throws {
        let findings = Self.lint([try Self.target("app", "app.plist")]) { $0.teamChange = "ZZZZZ99999" }
        let kc016 = try #require(findings.first { $0.rule == .kc016 })
        #expect(kc016.severity == .info)
        #expect(kc016.message.contains("SKMME9E2Y8.com.example.app, SKMME9E2Y8.com.example.shared"))
        #expect(kc016.message.contains("group.com.example survives"))
        #expect(kc016.fix?.contains("migrate-group --copy --from SKMME9E2Y8.com.example.shared --to group.com.example") == true)
        #expect(!Self.ids(Self.lint([try Self.target("app", "app.plist")]) { $0.teamChange = "SKMME9E2Y8" }).contains("KC016"))
    }

    @Test func kc018NonStringsAndRepeats() throws {
        #expect(
            Self.lint([try Self.target("a", "non-string-array.plist")]).contains {
                $0.rule == .kc018 && $0.index == 1 && $0.severity == .error
            })
        let notArray = try Self.document([("keychain-access-groups", "SKMME9E2Y8.a")])
        #expect(
            Self.lint([LintTarget(name: "a", claimsPath: "a.plist", claims: notArray)]).contains {
                $0.rule == .kc018 && $0.severity == .error
            })
        let repeated = try Self.document([("keychain-access-groups", ["SKMME9E2Y8.a", "SKMME9E2Y8.a"])])
        #expect(
            Self.lint([LintTarget(name: "a", claimsPath: "a.plist", claims: repeated)]).contains {
                $0.rule == .kc018 && $0.severity == .info
            })
    }

    @Test func kc019And020ProfileValidity() throws {
        #expect(Self.ids(Self.lint([try Self.target("app", "app.plist", provisioning: "app.mobileprovision.plist")])).contains("KC019"))
        let app = { try Self.target("app", "app.plist", provisioning: "dev-app.mobileprovision") }
        let expired = Self.lint([try app()], now: ISO8601.parse("2027-02-01T00:00:00Z")!)
        #expect(expired.contains { $0.rule == .kc020 && $0.severity == .error && $0.message.contains("expired on 2027-01-10T09:00:00Z") })
        let soon = Self.lint([try app()], now: ISO8601.parse("2026-12-31T09:00:00Z")!)
        #expect(soon.contains { $0.rule == .kc020 && $0.severity == .warning && $0.message.contains("in 10 days") })
        #expect(!Self.ids(Self.lint([try app()])).contains("KC020"))
        // A development profile (get-task-allow) lists its devices by nature: no finding; a
        // distribution one limited to devices is a warning (LintMistakeTests).
        let mac = Self.lint([try Self.target("mac", "mac-app.entitlements", provisioning: "dev-mac.provisionprofile")], platform: .macos)
        #expect(!mac.contains { $0.rule == .kc020 && $0.key == "ProvisionedDevices" })
        let wrongPlatform = Self.lint([try app()], platform: .macos)
        #expect(wrongPlatform.contains { $0.rule == .kc020 && $0.key == "Platform" && $0.severity == .error })
    }

    /// KC022: a key one or two edits from a keychain entitlement, or differing in case, is an
    /// error naming the key meant; a key far from all of them is none.
    @Test func kc022MisspelledKeychainKeys() throws {
        let typo = try Self.document([("keychain-acess-groups", ["SKMME9E2Y8.a"]), ("Com.Apple.Security.Application-Groups", ["group.a"])])
        let findings = Self.lint([LintTarget(name: "a", claimsPath: "a.plist", claims: typo)]).filter { $0.rule == .kc022 }
        #expect(findings.map(\.key) == ["Com.Apple.Security.Application-Groups", "keychain-acess-groups"])
        #expect(findings.allSatisfy { $0.severity == .error && $0.runtime?.status == -34018 })
        #expect(findings[1].message.contains("keychain-access-groups was likely meant"))
        let far = try Self.document([("com.apple.developer.associated-domains", ["applinks:example.com"])])
        #expect(!Self.ids(Self.lint([LintTarget(name: "a", claimsPath: "a.plist", claims: far)])).contains("KC022"))
    }

    /// A binary plist's date reads as the same instant as the XML one.
    @Test func binaryPlistDatesAreRead() throws {
        // bplist00 { "ExpirationDate": <date 2027-01-10T09:00:00Z>, "Entitlements": {} }
        let seconds = Double(ISO8601.parse("2027-01-10T09:00:00Z")! / 1000 - 978_307_200)
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        func object(_ body: [UInt8]) { offsets.append(bytes.count); bytes += body }
        object([0xD2, 1, 2, 3, 4])  // dict of 2: keys 1, 2; values 3, 4
        object([0x5E] + Array("ExpirationDate".utf8))
        object([0x5C] + Array("Entitlements".utf8))
        object([0x33] + withUnsafeBytes(of: seconds.bitPattern.bigEndian, Array.init))
        object([0xD0])
        let table = bytes.count
        bytes += offsets.map(UInt8.init)
        bytes += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 5] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        let document = try ProfileDocument.decode(bytes, path: "b.mobileprovision")
        #expect(document.expiration == ISO8601.parse("2027-01-10T09:00:00Z"))
    }

    /// Every rule of the table is exercised by a test above (this list is what they trigger).
    @Test func everyRuleInTheTableHasATest() {
        let tested: Set<String> = [
            "KC001", "KC002", "KC003", "KC004", "KC007", "KC009", "KC010", "KC011", "KC012", "KC013", "KC014", "KC015", "KC016",
            "KC017", "KC018", "KC019", "KC020", "KC021", "KC022",
        ]
        #expect(Set(LintRule.all.map(\.id.rawValue)) == tested)
        #expect(LintRule.all.count == 19)
        // One row per id: the table and the ids cannot drift apart.
        #expect(LintRule.all.map(\.id) == LintRuleID.allCases)
    }
}
