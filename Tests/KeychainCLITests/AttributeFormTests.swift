import Foundation
import KeychainTestSupport
import Testing

/// The command line names data as Apple's SecItem binds a CFData, in every attribute: `base64:…`
/// is data (an account stored as data is another item than the account of its text), `text:…`
/// is literal text, and what find, its JSON and ls show finds the item again.
@Suite struct AttributeFormTests {
    @Test func dataInATextAttributeRoundTrips() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.add(["-s", "svc", "--attr", "acct=base64:YWJj"], secret: "as-data").status == 0)
        #expect(sandbox.add(["-s", "svc", "-a", "abc"], secret: "as-text").status == 0, "text and data are two accounts")
        #expect(sandbox.run(["find", "-s", "svc", "--attr", "acct=base64:YWJj", "-w"]).stdout == "as-data")
        #expect(sandbox.run(["find", "-s", "svc", "-a", "abc", "-w"]).stdout == "as-text")
        // What find shows is what --attr takes back.
        let shown = sandbox.run(["find", "-s", "svc", "--attr", "acct=base64:YWJj", "--return", "attributes"]).stdout
        let line = try #require(shown.split(separator: "\n").first { $0.hasPrefix("acct (account): ") })
        let word = String(line.dropFirst("acct (account): ".count))
        #expect(word == "base64:YWJj")
        #expect(sandbox.run(["find", "-s", "svc", "--attr", "acct=" + word, "-w"]).stdout == "as-data")
        let json = try #require(
            try sandbox.run(["find", "-s", "svc", "--attr", "acct=base64:YWJj", "--return", "attributes", "--format", "json"]).json()
                as? [String: Any])
        #expect(json["acct"] as? String == "base64:YWJj", "\(json)")
        let listed = sandbox.run(["ls", "svc"]).stdout
        #expect(listed.contains("svc\tbase64:YWJj\t") && listed.contains("svc\tabc\t"), "\(listed)")
        // A bad base64 is errSecParam, nothing stored.
        #expect(sandbox.add(["-s", "svc", "--attr", "acct=base64:!!"], secret: "no").status == 206)
    }

    @Test func textEscapesALiteralPrefixAndTheEverydayVerbsTakeNamesLiterally() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.add(["-s", "svc", "--attr", "acct=text:base64:xyz"], secret: "literal").status == 0)
        let shown = sandbox.run(["find", "-s", "svc", "--return", "attributes"]).stdout
        #expect(shown.contains("acct (account): text:base64:xyz"), "\(shown)")
        #expect(sandbox.run(["find", "-s", "svc", "--attr", "acct=text:base64:xyz", "-w"]).stdout == "literal")
        // set, get and rm take NAME and ACCOUNT as they are, whatever they begin with.
        #expect(sandbox.run(["set", "base64:name", "text:acct"], stdin: Data("kept".utf8)).status == 0)
        #expect(sandbox.run(["get", "base64:name", "text:acct"]).stdout == "kept")
        #expect(sandbox.run(["find", "--attr", "svce=text:base64:name", "--attr", "acct=text:text:acct", "-w"]).stdout == "kept")
        #expect(sandbox.run(["ls", "base64:*"]).stdout.hasPrefix("base64:name\ttext:acct\t"))
        #expect(sandbox.run(["rm", "base64:name", "text:acct"]).status == 0)
    }
}
