import Testing

@testable import KeychainCLI
@testable import KeychainCore

/// exec's QUERY grammar.
@Suite struct SecretQueryTests {
    @Test func namesCodesEscapesAndReferences() throws {
        let request = try SecretQuery.parse("service=a\\,b,acct=x\\=y,class=inet,port=443,path=\\\\", name: "T")
        #expect(request.itemClass == "inet")
        #expect(request.attributes.map(\.code) == ["svce", "acct", "port", "path"])
        #expect(request.attributes.map(\.value) == ["a,b", "x=y", "443", "\\"])
        #expect(try SecretQuery.parse("ref=Z2VucA==", name: "T").persistentRef == "Z2VucA==")
        #expect(try SecretQuery.parse("account=", name: "T").attributes.first?.value == "")
    }

    @Test(arguments: [
        "", "service", "service=a,", "=x", "bogus=1", "service=a,service=b", "a\\x=1", "service=a\\", "class=genp,class=inet",
    ])
    func malformedQueriesAreErrSecParam(text: String) {
        #expect(throws: KeychainError.self) { try SecretQuery.parse(text, name: "T") }
        do { _ = try SecretQuery.parse(text, name: "T") } catch { #expect(error.status == .param && error.hint.hasPrefix("T:")) }
    }
}
