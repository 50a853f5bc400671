import Foundation
import Security
import TokenStore
import XCTest

final class TokenStoreTests: XCTestCase {
    func testATokenIsKeptReplacedAndDeleted() {
        let store = TokenStore(service: "com.example.tokens")
        XCTAssertTrue(TokenStore.hasSecurity)
        XCTAssertEqual(store.save("first", account: "alice"), errSecSuccess)
        XCTAssertEqual(store.save("second", account: "alice"), errSecSuccess)
        XCTAssertEqual(store.token(account: "alice"), "second")
        XCTAssertEqual(store.delete(account: "alice"), errSecSuccess)
        XCTAssertNil(store.token(account: "alice"))
        XCTAssertEqual(store.delete(account: "alice"), errSecItemNotFound)
    }

    func testAKeySignsAndVerifies() throws {
        let parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256]
        var error: Unmanaged<CFError>?
        let key = try XCTUnwrap(SecKeyCreateRandomKey(parameters as CFDictionary, &error))
        let message = Data("signed on Linux".utf8)
        let signature = try XCTUnwrap(SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message as CFData, &error))
        let publicKey = try XCTUnwrap(SecKeyCopyPublicKey(key))
        XCTAssertTrue(SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, message as CFData, signature, &error))
    }
}
