import Foundation
import Testing

/// Behaviours Apple's own regression tests check, through the real binary. Each test names the
/// Apple file (Security-61901) the behaviour and its assertions come from.
@Suite struct AppleConformanceTests {
    /// `keychain/securityd/SecDbQuery.c`, `query_create_with_limit`: the implicit `sync = 0` filter
    /// is added only when the query names neither `sync` nor a persistent reference, so an item is
    /// found, updated and deleted by its reference whatever its sync state
    /// (`tests/secdxctests/KeychainAPITests.m`, the persistent-reference tests of synchronizable items).
    @Test func aSynchronizableItemIsReachedByItsPersistentReference() throws {
        let sandbox = try Sandbox()
        let added = sandbox.run(
            ["add", "-s", "cloud", "-a", "alice", "--sync", "yes", "--return", "persistent-ref"], stdin: Data("SECRET-sync".utf8))
        #expect(added.status == 0, "\(added.stderr)")
        let ref = added.stdout.trimmingCharacters(in: .newlines)
        // Without the reference, the implicit filter hides it.
        #expect(sandbox.run(["find", "-s", "cloud", "-a", "alice", "-w"]).status == 44)
        let found = sandbox.run(["find", "--persistent-ref", ref, "-w"])
        #expect(found.status == 0 && found.stdout == "SECRET-sync", "\(found.stderr)")
        #expect(sandbox.run(["update", "--persistent-ref", ref, "--set-label", "renamed"]).status == 0)
        let label = sandbox.run(["find", "-s", "cloud", "--sync", "yes", "--format", "json"])
        #expect((try? label.json() as? [String: Any])?["labl"] as? String == "renamed", "\(label.stdout)")
        #expect(sandbox.run(["delete", "--persistent-ref", ref]).status == 0)
        #expect(sandbox.run(["find", "--persistent-ref", ref]).status == 44)
        // A reference with any other attribute is still errSecParam, sync included.
        #expect(sandbox.run(["find", "--persistent-ref", ref, "--sync", "yes"]).status == 206)
    }

    /// `OSX/sec/Security/Regressions/secitem/si-43-persistent.c` and `secitemfunctionality.m`:
    /// SecItemUpdate takes a persistent reference as its query, and changes that item alone.
    @Test func updateTakesAPersistentReference() throws {
        let sandbox = try Sandbox()
        let first = sandbox.run(["add", "-s", "svc", "-a", "one", "--return", "persistent-ref"], stdin: Data("1".utf8))
        #expect(sandbox.run(["add", "-s", "svc", "-a", "two"], stdin: Data("2".utf8)).status == 0)
        let ref = first.stdout.trimmingCharacters(in: .newlines)
        #expect(sandbox.run(["update", "--persistent-ref", ref, "--set-password", "changed"]).status == 0)
        #expect(sandbox.run(["find", "-s", "svc", "-a", "one", "-w"]).stdout == "changed")
        #expect(sandbox.run(["find", "-s", "svc", "-a", "two", "-w"]).stdout == "2")
        #expect(sandbox.run(["update", "--persistent-ref", ref, "-s", "svc", "--set-label", "x"]).status == 206)
    }
}

extension AppleConformanceTests {
    /// `keychain/securityd/SecItemServer.c`: `kSecAttrAppClipItem` (`clip`) is the keychain's to
    /// set; a caller who gives it gets errSecParam (-50, exit 206), not errSecNoSuchAttr.
    @Test func theAppClipMarkIsNotTheCallersToSet() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.run(["add", "-s", "svc", "--attr", "clip=1"], stdin: Data("x".utf8)).status == 206)
        #expect(sandbox.run(["find", "-s", "svc", "--attr", "clip=1"]).status == 206)
        #expect(sandbox.run(["add", "-s", "svc", "--attr", "zzzz=1"], stdin: Data("x".utf8)).status == 41)
    }
}

extension AppleConformanceTests {

    /// `OSX/sec/Security/Regressions/secitem/si-05-add.c`: SecItemAdd with a return option hands
    /// back the new item's data or reference, as a find by it would.
    @Test func anAddReturnsWhatItWasAskedFor() throws {
        let sandbox = try Sandbox()
        let pem = Fixtures.certificates + "/leaf-ec.pem"
        let added = sandbox.run(["add", "--class", "cert", "--ref-file", pem, "--return", "data"])
        let found = sandbox.run(["find", "--class", "cert", "--return", "data"])
        #expect(added.status == 0 && !added.stdout.isEmpty && added.stdout == found.stdout, "\(added.stdout) \(added.stderr)")
        let reference = sandbox.run(["add", "--class", "cert", "--ref-file", Fixtures.certificates + "/root.pem", "--return", "ref"])
        #expect(reference.status == 0 && reference.stdout.hasPrefix("-----BEGIN CERTIFICATE-----"), "\(reference.stderr)")
        let password = sandbox.run(["add", "-s", "svc", "-a", "a", "--return", "data"], stdin: Data("SECRET-x".utf8))
        #expect(password.status == 0 && password.stdout.trimmingCharacters(in: .newlines) == Data("SECRET-x".utf8).base64EncodedString())
        // A private key's bytes are not handed back by an add: refused before anything is written.
        let key = sandbox.run(["add", "--class", "keys", "--ref-file", Fixtures.certificates + "/leaf-ec.key", "--return", "data"])
        #expect(key.status == 206, "\(key.stderr)")
        #expect(sandbox.run(["find", "--class", "keys"]).status == 44)
    }

    /// `OSX/sec/Security/Regressions/secitem/si-42-identity.c` and `secitemfunctionality.m`: an
    /// identity add returns the identity's persistent reference, and the same add again is
    /// errSecDuplicateItem (-25299), not errSecParam.
    @Test func anIdentityAddReturnsItsReference() throws {
        let sandbox = try Sandbox()
        let files = ["--ref-file", Fixtures.certificates + "/leaf-ec.pem", "--ref-file", Fixtures.certificates + "/leaf-ec.key"]
        let added = sandbox.run(["add", "--class", "idnt"] + files + ["--return", "persistent-ref"])
        #expect(added.status == 0, "\(added.stderr)")
        let ref = added.stdout.trimmingCharacters(in: .newlines)
        #expect(Data(base64Encoded: ref).map { Array($0.prefix(4)) } == Array("idnt".utf8), "\(ref)")
        #expect(sandbox.run(["find", "--persistent-ref", ref, "--return", "attributes"]).status == 0)
        let again = sandbox.run(["add", "--class", "idnt"] + files + ["--return", "persistent-ref"])
        #expect(again.status == 45, "\(again.stderr)")
    }
}

extension AppleConformanceTests {
    /// `OSX/sec/Security/SecItem.m` normalises a query's issuer client-side, so a certificate is
    /// found by the issuer Name as its CA wrote it (a whole DER Name, another case or spacing of a
    /// PrintableString), for `cert` and `idnt` queries alike.
    @Test func anIssuerMatchesHoweverItIsWritten() throws {
        let sandbox = try Sandbox()
        let pem = Fixtures.certificates + "/root.pem"
        #expect(sandbox.run(["add", "--class", "cert", "--ref-file", pem]).status == 0)
        let raw = try Fixtures.rawIssuer(ofPEM: pem)
        let stored = sandbox.run(["find", "--class", "cert", "--format", "json"])
        let normalized = try #require((try stored.json() as? [String: Any])?["issr"] as? String)
        #expect(normalized != Data(raw).base64EncodedString(), "the fixture's issuer should need normalising")
        for issuer in [Data(raw).base64EncodedString(), Data(raw.dropFirst(2)).base64EncodedString(), normalized] {
            let found = sandbox.run(["find", "--class", "cert", "--attr", "issr=base64:" + issuer])
            #expect(found.status == 0, "issuer \(issuer): \(found.stderr)")
        }
        #expect(sandbox.run(["find", "--class", "cert", "--attr", "issr=base64:AAAA"]).status == 44)
    }
}

extension AppleConformanceTests {
    /// `keychain/securityd/SecDbItem.c`, `copyNumber`: a number attribute given text that is not
    /// exactly an integer keeps the text, and an integer string is the number
    /// (`OSX/sec/Security/Regressions/secitem/si-12-item-stress.c` and the common wrappers add
    /// `kSecAttrCreator` as a string).
    @Test func numberAttributesKeepTextThatIsNotANumber() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.run(["add", "-s", "svc", "-a", "a", "--attr", "crtr=Creator Test"], stdin: Data("x".utf8)).status == 0)
        let found = sandbox.run(["find", "-s", "svc", "--attr", "crtr=Creator Test", "--format", "json"])
        #expect((try? found.json() as? [String: Any])?["crtr"] as? String == "Creator Test", "\(found.stdout) \(found.stderr)")
        let web = ["--class", "inet", "--server", "example.com", "-a", "a"]
        #expect(sandbox.run(["add"] + web + ["--port", "443"], stdin: Data("x".utf8)).status == 0)
        let port = sandbox.run(["find"] + web + ["--attr", "port=443", "--format", "json"])
        #expect((try? port.json() as? [String: Any])?["port"] as? Int == 443, "\(port.stdout) \(port.stderr)")
        #expect(sandbox.run(["find"] + web + ["--port", "eighty"]).status == 44)
    }
}

extension AppleConformanceTests {
    /// `keychain/securityd/SecItemServer.c`, `appClipHasAcceptableAccessGroups` and its callers
    /// (`tests/secdxctests/KeychainAppClipTests.m`): an App Clip whose access groups are more than
    /// its application identifier gets errSecRestrictedAPI (-34020, exit 28) from every call; one
    /// with its own group alone works, but may not add or update a synchronizable item.
    @Test func appClipsAreRestricted() throws {
        let sandbox = try Sandbox()
        for call in [
            ["add", "-s", "clip"], ["find", "-s", "clip"], ["update", "-s", "clip", "--set-label", "x"], ["delete", "-s", "clip"],
        ] {
            let run = sandbox.run(call, profile: "app-clip-shared.plist", stdin: Data("x".utf8))
            #expect(run.status == 28 && run.stderr.contains("errSecRestrictedAPI -34020"), "\(call[0]): \(run.status) \(run.stderr)")
        }
        let explained = sandbox.run(["explain", "-s", "clip", "--strict"], profile: "app-clip-shared.plist")
        #expect(explained.status == 28, "explain predicts \(explained.status)")
        // Its own group alone is acceptable.
        #expect(sandbox.run(["add", "-s", "clip", "-a", "a"], profile: "app-clip.plist", stdin: Data("x".utf8)).status == 0)
        #expect(sandbox.run(["find", "-s", "clip", "-a", "a", "-w"], profile: "app-clip.plist").stdout == "x")
        let synced = sandbox.run(["add", "-s", "clip", "-a", "b", "--sync", "yes"], profile: "app-clip.plist", stdin: Data("x".utf8))
        #expect(synced.status == 28, "\(synced.stderr)")
        let update = sandbox.run(["update", "-s", "clip", "-a", "a", "--set-sync", "yes"], profile: "app-clip.plist")
        #expect(update.status == 28, "\(update.stderr)")
        #expect(sandbox.run(["error", "-34020"], profile: nil).stdout.contains("errSecRestrictedAPI"))
    }
}
