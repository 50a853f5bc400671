import Foundation
import Security
import SecurityTesting
import Testing

/// What a caller hands SecItem is input like any other: a value of a type the key does not take,
/// a key that is not a string, nesting, control characters or a huge name is a status, never a
/// crash, and never another item's secret.
@Suite struct HostileDictionaryTests {
    let keychain: SecurityTesting.Lease

    init() async throws {
        keychain = try await SecurityTesting.Lease(inMemory: .accessGroups(["SKMME9E2Y8.com.example.app"]))
        let item: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "victim",
            kSecValueData as String: Data("secret".utf8),
        ]
        #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
    }

    static var badValues: [(String, Any)] {
        // An array and a dictionary that hold themselves: walking them would never end.
        let selfArray = NSMutableArray()
        selfArray.add(selfArray)
        let selfDictionary = NSMutableDictionary()
        selfDictionary["acct"] = selfDictionary
        return [
            ("an array", ["victim"]), ("a dictionary", ["acct": "victim"]), ("null", NSNull()), ("a nested array", [[["x"]]]),
            ("a date for a string attribute", Date()), ("an array holding itself", selfArray),
            ("a dictionary holding itself", selfDictionary),
        ]
    }

    @Test(arguments: badValues.indices)
    func aValueOfAnotherTypeIsAParameterError(_ index: Int) {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: Self.badValues[index].1,
            kSecReturnData as String: true,
        ]
        var result: CFTypeRef?
        #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecParam, "\(Self.badValues[index].0)")
        #expect(result == nil)
    }

    /// A date attribute holding a date the store cannot keep in milliseconds (±∞, NaN, 1e300 s)
    /// is errSecParam in every call, not a crash of the calling program (the review's L1).
    @Test(arguments: [Double.infinity, -Double.infinity, Double.nan, 1e300, -1e300, 9.3e15])
    func aDateOutOfRangeIsAParameterError(seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        let add: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "dated",
            kSecAttrCreationDate as String: date, kSecValueData as String: Data("x".utf8),
        ]
        #expect(SecItemAdd(add as CFDictionary, nil) == errSecParam)
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrModificationDate as String: date]
        #expect(SecItemCopyMatching(query as CFDictionary, nil) == errSecParam)
        #expect(SecItemDelete(query as CFDictionary) == errSecParam)
        let victim: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "victim"]
        #expect(SecItemUpdate(victim as CFDictionary, [kSecAttrCreationDate as String: date] as CFDictionary) == errSecParam)
        // The largest date that fits still works.
        let fits = Date(timeIntervalSince1970: 9.2e12)
        #expect(
            SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecAttrCreationDate as String: fits] as CFDictionary, nil)
                == errSecItemNotFound)
    }

    @Test func aKeyThatIsNotAStringIsAParameterError() {
        let query = NSMutableDictionary()
        query[kSecClass] = kSecClassGenericPassword
        query[NSNumber(value: 7)] = "victim"
        #expect(SecItemDelete(query) == errSecParam)
        // A key that holds itself is refused unread, as a value that does.
        let selfArray = NSMutableArray()
        selfArray.add(selfArray)
        query.removeObject(forKey: NSNumber(value: 7))
        query[selfArray] = "victim"
        #expect(SecItemDelete(query) == errSecParam)
    }

    /// Arrays nested 200,000 deep: converting them to Swift arrays, level by level, would overflow
    /// any stack. Kept for the life of the process: releasing them is as deep a recursion.
    nonisolated(unsafe) static let deep: NSArray = {
        var deep = NSArray(object: "victim")
        for _ in 0..<200_000 { deep = NSArray(object: deep) }
        return deep
    }()

    /// Collections nested past the stack, or holding themselves, in every dictionary each call
    /// reads: errSecParam, with nothing changed and the victim's secret still there.
    @Test func aCollectionNestedPastTheStackIsAParameterError() {
        let selfDictionary = NSMutableDictionary()
        selfDictionary["acct"] = selfDictionary
        for value in [Self.deep, selfDictionary] {
            let hostile: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: value]
            #expect(SecItemAdd(hostile as CFDictionary, nil) == errSecParam)
            #expect(SecItemDelete(hostile as CFDictionary) == errSecParam)
            let victim: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "victim"]
            #expect(SecItemUpdate(victim as CFDictionary, [kSecAttrLabel as String: value] as CFDictionary) == errSecParam)
        }
        var result: CFTypeRef?
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "victim", kSecReturnData as String: true,
        ]
        #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
        #expect((result as? Data).map { String(decoding: $0, as: UTF8.self) } == "secret")
    }

    /// SecDbQuery.c (`query_applier`): a four-character key is an attribute (unknown to the class:
    /// errSecNoSuchAttr); any other key that is no class, match, return, use or value key is
    /// errSecItemInvalidKey, which SecBasePriv.h makes errSecParam. Neither leaks the name raw.
    @Test func anUnknownKeyIsNoSuchAttributeOrAParameterError() {
        let cases: [(String, OSStatus)] = [
            ("zzzz", errSecNoSuchAttr), (String(repeating: "a", count: 100_000), errSecParam), ("acct\u{0}", errSecParam),
            ("\u{1b}[31m", errSecParam),
        ]
        for (name, expected) in cases {
            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, name: "victim", kSecReturnData as String: true]
            var result: CFTypeRef?
            #expect(SecItemCopyMatching(query as CFDictionary, &result) == expected, "\(name.prefix(8))")
            #expect(result == nil)
            #expect(SecurityTesting.lastFailure?.contains("\u{1b}") == false)
        }
    }

    @Test func anUnknownClassIsNoSuchClass() {
        let query: [String: Any] = [kSecClass as String: "genp\u{0}", kSecAttrAccount as String: "victim"]
        #expect(SecItemDelete(query as CFDictionary) == errSecNoSuchClass)
    }

    @Test func aKeyTheLibraryDoesNotServeIsUnimplementedNotIgnored() {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecMatchCaseInsensitive as String: true, kSecReturnData as String: true,
        ]
        var result: CFTypeRef?
        #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecUnimplemented)
        #expect(result == nil)
    }

    /// A password has no object: kSecReturnRef for one is ignored, as Apple ignores it.
    @Test func aPasswordHasNoObjectToReturn() {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "victim", kSecReturnRef as String: true,
        ]
        var result: CFTypeRef?
        #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
        #expect(result == nil)
    }
}
