import Testing

@testable import KeychainCLI
@testable import KeychainCore

/// exec's QUERY grammar.
@Suite struct SecretQueryTests {
    @Test func namesCodesEscapesAndReferences() throws {
        let request = try SecretQuery.parse("service=a\\,b,acct=x\\=y,class=inet,port=443,path=\\\\", name: "T")
        #expect(request.itemClass == "inet")
        #expect(request.attributes.map(\.code) == ["svce", "acct", "port", "path"])
        #expect(request.attributes.map(\.input) == [.word("a,b"), .word("x=y"), .word("443"), .word("\\")])
        #expect(try SecretQuery.parse("ref=Z2VucA==", name: "T").persistentRef == "Z2VucA==")
        #expect(try SecretQuery.parse("account=", name: "T").attributes.first?.input == .word(""))
        // A bare NAME is the item `set NAME` stored; escapes hold there too.
        let bare = try SecretQuery.parse("api-token", name: "T")
        #expect(bare.attributes.map(\.code) == ["svce"] && bare.attributes.map(\.input) == [.word("api-token")])
        #expect(try SecretQuery.parse("a\\,b", name: "T").attributes.first?.input == .word("a,b"))
    }

    @Test(arguments: [
        "", "service,", "a,b", "service=a,", "=x", "bogus=1", "service=a,service=b", "a\\x=1", "service=a\\", "class=genp,class=inet",
    ])
    func malformedQueriesAreErrSecParam(text: String) {
        #expect(throws: KeychainError.self) { try SecretQuery.parse(text, name: "T") }
        do { _ = try SecretQuery.parse(text, name: "T") } catch { #expect(error.status == .param && error.hint.hasPrefix("T:")) }
    }
}
