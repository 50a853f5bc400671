import Foundation
import Security
import SecurityTesting
import Testing

// Keychain code written as an app writes it, run on Linux through `import Security`. Each
// expectation cites the Apple source or test it comes from (apple-oss-distributions/Security).
// Each test holds the library (a lease on a fresh in-memory keychain): it serves one keychain per
// process, as an app has one, so tests running in parallel take turns.

private let app = "SKMME9E2Y8.com.example.app"
private let shared = "SKMME9E2Y8.com.example.shared"
private let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures").path

func addPassword(_ account: String, _ password: String, extra: [String: Any] = [:]) -> OSStatus {
    var query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: "api.example.com",
        kSecAttrAccount as String: account,
        kSecValueData as String: password.data(using: .utf8)!,
    ]
    query.merge(extra) { _, new in new }
    return SecItemAdd(query as CFDictionary, nil)
}

func readPassword(_ account: String, extra: [String: Any] = [:]) -> (OSStatus, String?) {
    var query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: "api.example.com",
        kSecAttrAccount as String: account,
        kSecReturnData as String: kCFBooleanTrue!,
        kSecMatchLimit as String: kSecMatchLimitOne,
    ]
    query.merge(extra) { _, new in new }
    var result: AnyObject?
    let status = withUnsafeMutablePointer(to: &result) { SecItemCopyMatching(query as CFDictionary, UnsafeMutablePointer($0)) }
    return (status, (result as? Data).flatMap { String(data: $0, encoding: .utf8) })
}

@Suite struct SecItemTests {
    /// A fresh in-memory keychain for the app (its groups: app, shared), for each test.
    let keychain: SecurityTesting.Lease

    init() async throws { keychain = try await SecurityTesting.Lease(inMemory: .accessGroups([app, shared])) }

    /// SecItem.h: with kSecReturnData and kSecMatchLimitOne the result is the item's data, as CFData.
    @Test func aPasswordAddedIsReadBackAsData() throws {
        #expect(addPassword("alice", "s3cret") == errSecSuccess)
        let (status, password) = readPassword("alice")
        #expect(status == noErr)
        #expect(password == "s3cret")
    }

    /// SecDbItem.c: kSecAttrAccessible takes Apple's constants alone: the command line's long
    /// names ("when-unlocked", which the library's value used to be parsed as) are errSecParam,
    /// and nothing is stored.
    @Test func theProtectionIsAValueAsAppleBindsIt() throws {
        #expect(addPassword("bad", "s", extra: [kSecAttrAccessible as String: "when-unlocked"]) == errSecParam)
        #expect(readPassword("bad").0 == errSecItemNotFound)
        #expect(addPassword("good", "s", extra: [kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock]) == errSecSuccess)
    }

    /// Every value as Apple binds it, none of the command line's escapes or words: a group spelled
    /// "text:GROUP" is that string, not GROUP, so no entitlement names it (-34018); "base64:" is
    /// part of an account; "https" is not kSecAttrProtocolHTTPS; a boolean or a date given as
    /// text converts to neither (-50).
    @Test func noCommandLineSpellingMeansAnythingToSecItem() throws {
        #expect(addPassword("escaped", "s", extra: [kSecAttrAccessGroup as String: "text:" + app]) == errSecMissingEntitlement)
        #expect(addPassword("base64:YWxpY2U=", "s") == errSecSuccess)
        #expect(readPassword("alice").0 == errSecItemNotFound)
        #expect(readPassword("base64:YWxpY2U=").1 == "s")
        var internet: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com", kSecAttrAccount as String: "bob",
            kSecAttrProtocol as String: "https", kSecValueData as String: Data("p".utf8),
        ]
        #expect(SecItemAdd(internet as CFDictionary, nil) == errSecSuccess)
        internet[kSecAttrProtocol as String] = kSecAttrProtocolHTTPS
        internet[kSecValueData as String] = nil
        #expect(SecItemCopyMatching(internet as CFDictionary, nil) == errSecItemNotFound, "\"https\" is not \"htps\"")
        #expect(addPassword("flag", "s", extra: [kSecAttrIsInvisible as String: "yes"]) == errSecParam)
        #expect(addPassword("flag", "s", extra: [kSecAttrIsInvisible as String: true]) == errSecSuccess)
        #expect(addPassword("dated", "s", extra: [kSecAttrCreationDate as String: "2026-01-01T00:00:00Z"]) == errSecParam)
    }

    /// `NSError()`, as test code compares a keychain error against a plain one (SimpleKeychain's
    /// suite): an empty domain and code 0, never equal to an OSStatus error.
    @Test func aPlainNSErrorBuildsAsOnApplePlatforms() {
        let plain = NSError()
        #expect(plain.domain.isEmpty && plain.code == 0)
        #expect(NSError(domain: NSOSStatusErrorDomain, code: Int(errSecItemNotFound)) != plain)
    }

    /// SecItemServer.c `_SecItemAdd`: the same primary key twice is errSecDuplicateItem, and the
    /// documented answer is SecItemUpdate (Apple's "Updating and deleting keychain items").
    @Test func aSecondAddIsADuplicateAndAnUpdateReplacesTheData() throws {
        #expect(addPassword("alice", "one") == errSecSuccess)
        #expect(addPassword("alice", "two") == errSecDuplicateItem)
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "api.example.com", kSecAttrAccount as String: "alice",
        ]
        let changes: [String: Any] = [kSecValueData as String: Data("two".utf8)]
        #expect(SecItemUpdate(query as CFDictionary, changes as CFDictionary) == errSecSuccess)
        #expect(readPassword("alice").1 == "two")
    }

    /// SecItemServer.c (`query_set_data`): empty data is a new secret like any other, as
    /// SimpleKeychain's suite expects of `set(Data(), forKey:)` over an existing item.
    @Test func anUpdateToEmptyDataSucceeds() throws {
        #expect(addPassword("alice", "one") == errSecSuccess)
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "api.example.com", kSecAttrAccount as String: "alice",
        ]
        let changes: [String: Any] = [kSecValueData as String: Data()]
        #expect(SecItemUpdate(query as CFDictionary, changes as CFDictionary) == errSecSuccess)
        let (status, password) = readPassword("alice")
        #expect(status == errSecSuccess && password == "")
    }

    /// SecItemServer.c `_SecItemUpdate`: nothing matched is errSecItemNotFound, and nothing is added.
    /// SecItem.h (kSecReturnPersistentRef, kSecValuePersistentRef): the reference an add returns
    /// names that item alone, as OneTimePassword stores its tokens: by it the item is read (its
    /// attributes, data and the same reference back), updated and deleted, and once deleted the
    /// reference finds nothing. Two items alike but for the account have two references.
    @Test func aPersistentReferenceReadsUpdatesAndDeletesItsItemAlone() throws {
        func add(_ account: String) throws -> Data {
            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "otp", kSecAttrAccount as String: account,
                kSecAttrGeneric as String: Data("otpauth://totp/one".utf8), kSecValueData as String: Data("one".utf8),
                kSecReturnPersistentRef as String: kCFBooleanTrue!,
            ]
            var result: AnyObject?
            #expect(withUnsafeMutablePointer(to: &result) { SecItemAdd(query as CFDictionary, $0) } == errSecSuccess)
            return try #require(result as? Data)
        }
        func read(_ ref: Data) -> (OSStatus, NSDictionary?) {
            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: ref,
                kSecReturnPersistentRef as String: true, kSecReturnAttributes as String: true, kSecReturnData as String: true,
            ]
            var result: AnyObject?
            let status = withUnsafeMutablePointer(to: &result) { SecItemCopyMatching(query as CFDictionary, $0) }
            return (status, result as? NSDictionary)
        }
        let first = try add("a")
        let second = try add("b")
        #expect(first != second)
        let (status, item) = read(first)
        #expect(status == errSecSuccess)
        #expect(item?[kSecAttrAccount as String] as? String == "a")
        #expect(item?[kSecValuePersistentRef as String] as? Data == first)
        #expect(item?[kSecValueData as String] as? Data == Data("one".utf8))

        let byRef: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: first]
        let changes: [String: Any] = [
            kSecAttrGeneric as String: Data("otpauth://totp/two".utf8), kSecValueData as String: Data("two".utf8),
        ]
        #expect(SecItemUpdate(byRef as CFDictionary, changes as CFDictionary) == errSecSuccess)
        #expect(read(first).1?[kSecValueData as String] as? Data == Data("two".utf8))
        #expect(read(second).1?[kSecValueData as String] as? Data == Data("one".utf8))

        #expect(SecItemDelete(byRef as CFDictionary) == errSecSuccess)
        #expect(read(first).0 == errSecItemNotFound)
        #expect(SecItemDelete(byRef as CFDictionary) == errSecItemNotFound)
        #expect(read(second).0 == errSecSuccess)
    }

    /// SecItemServer.c: a persistent reference is one more query term, so the caller's access
    /// groups still filter it. Another team's app handed the app's reference (a leaked log, a
    /// shared file) cannot read, change or delete the item by it: errSecItemNotFound, as if the
    /// reference named nothing.
    @Test func aPersistentReferenceGivesAnotherAppNothing() throws {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "alice", kSecValueData as String: Data("s3cret".utf8),
            kSecReturnPersistentRef as String: true,
        ]
        var result: AnyObject?
        #expect(withUnsafeMutablePointer(to: &result) { SecItemAdd(query as CFDictionary, $0) } == errSecSuccess)
        let ref = try #require(result as? Data)
        try SecurityTesting.actAs(.accessGroups(["OTHERTEAM1.com.example.other"]))
        let byRef: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: ref]
        var stolen: AnyObject?
        let read = byRef.merging([kSecReturnData as String: true]) { $1 }
        #expect(withUnsafeMutablePointer(to: &stolen) { SecItemCopyMatching(read as CFDictionary, $0) } == errSecItemNotFound)
        #expect(stolen == nil)
        let changes: [String: Any] = [kSecValueData as String: Data("mine".utf8)]
        #expect(SecItemUpdate(byRef as CFDictionary, changes as CFDictionary) == errSecItemNotFound)
        #expect(SecItemDelete(byRef as CFDictionary) == errSecItemNotFound)
        try SecurityTesting.actAs(.accessGroups([app, shared]))
        var back: AnyObject?
        let mine = byRef.merging([kSecReturnData as String: true]) { $1 }
        #expect(withUnsafeMutablePointer(to: &back) { SecItemCopyMatching(mine as CFDictionary, $0) } == errSecSuccess)
        #expect(back as? Data == Data("s3cret".utf8))
    }

    @Test func anUpdateOfAMissingItemIsNotFound() throws {
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "nobody"]
        let changes: [String: Any] = [kSecValueData as String: Data("x".utf8)]
        #expect(SecItemUpdate(query as CFDictionary, changes as CFDictionary) == errSecItemNotFound)
        #expect(readPassword("nobody").0 == errSecItemNotFound)
    }

    /// SecItemServer.c (`SecItemClientCanAccessAccessGroup`): a group named without its Team ID
    /// prefix is not one of the caller's, so the add is errSecMissingEntitlement (-34018), the
    /// mistake rambo.codes' "Common pitfalls when using Keychain Sharing" describes.
    @Test func aGroupWithoutItsTeamIDPrefixIsAMissingEntitlement() throws {
        #expect(addPassword("alice", "x", extra: [kSecAttrAccessGroup as String: "com.example.shared"]) == errSecMissingEntitlement)
        #expect(addPassword("alice", "x", extra: [kSecAttrAccessGroup as String: shared]) == errSecSuccess)
        #expect(SecurityTesting.lastFailure == nil)
    }

    /// SecItemServer.c (`SecItemAdd` with no kSecAttrAccessGroup): the item goes to the caller's
    /// first group, and its attributes say so.
    @Test func anItemWithoutAGroupGoesToTheFirstGroup() throws {
        #expect(addPassword("alice", "x") == errSecSuccess)
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "alice", kSecReturnAttributes as String: true,
        ]
        var result: CFTypeRef?
        #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
        let attributes = try #require(result as? [String: Any])
        #expect(attributes[kSecAttrAccessGroup as String] as? String == app)
        #expect(attributes[kSecAttrAccount as String] as? String == "alice")
        #expect(attributes[kSecClass as String] as? String == kSecClassGenericPassword as String)
        // Read as Apple-platform code reads it: an NSString key in an [AnyHashable: Any].
        let anyKeyed = try #require(result as? [AnyHashable: Any])
        #expect(anyKeyed[kSecAttrService] as? String == "api.example.com")
        #expect(anyKeyed[kSecAttrAccount] as? String == "alice")
    }

    /// SecItem.h (kSecAttrSynchronizable): a query that does not mention it matches only items
    /// that do not sync; kSecAttrSynchronizableAny matches both.
    @Test func aSynchronizableItemIsFoundOnlyBySyncAny() throws {
        #expect(addPassword("alice", "x", extra: [kSecAttrSynchronizable as String: true]) == errSecSuccess)
        #expect(readPassword("alice").0 == errSecItemNotFound)
        #expect(readPassword("alice", extra: [kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]).1 == "x")
    }

    /// SecAccessControl.m and SecItemServer.c: an item protected by user presence cannot be read
    /// when nobody can be asked (errSecInteractionNotAllowed), kSecUseAuthenticationUISkip leaves
    /// it out (errSecItemNotFound), and an approved prompt reads it.
    @Test func anAccessControlledItemNeedsTheUser() throws {
        var error: Unmanaged<CFError>?
        let control = try #require(
            SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .userPresence, &error))
        #expect(addPassword("alice", "x", extra: [kSecAttrAccessControl as String: control]) == errSecSuccess)
        #expect(readPassword("alice").0 == errSecInteractionNotAllowed)
        #expect(readPassword("alice", extra: [kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip]).0 == errSecItemNotFound)
        SecurityTesting.answerAuthentication(.approve)
        #expect(readPassword("alice").1 == "x")
    }

    /// SecItemServer.c and the keybag: an item bound to the enrolled biometry set
    /// (biometryCurrentSet) is read while that set stands, and dropped once it changes.
    @Test func aBiometryChangeDropsAnItemBoundToTheEnrolledSet() throws {
        try SecurityTesting.changeDevice(.passcodeSet)
        try SecurityTesting.changeDevice(.biometryEnroll)
        SecurityTesting.answerAuthentication(.approve)
        var error: Unmanaged<CFError>?
        let control = try #require(
            SecAccessControlCreateWithFlags(
                kCFAllocatorDefault, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, .biometryCurrentSet, &error))
        #expect(addPassword("alice", "x", extra: [kSecAttrAccessControl as String: control]) == errSecSuccess)
        #expect(readPassword("alice").1 == "x")
        try SecurityTesting.changeDevice(.biometryChange)
        #expect(readPassword("alice").0 == errSecItemNotFound)
    }

    /// CFBundle.h: `kCFBundleIdentifierKey` is the Info.plist key wrappers read their default
    /// service from (Locksmith's `LocksmithDefaultService`), spelled as on Apple platforms.
    @Test func theBundleIdentifierKeyIsCoreFoundations() {
        #expect(kCFBundleIdentifierKey as String == "CFBundleIdentifier")
        let service = Bundle.main.infoDictionary?[String(kCFBundleIdentifierKey)] as? String ?? "fallback"
        #expect(service == Bundle.main.bundleIdentifier ?? "fallback")
    }

    /// SecAccessControl.m (`SecAccessControlCompare`): an access control is equal to another with
    /// the same protection and constraints, and, as every CoreFoundation type is in Swift,
    /// hashable: queries typed `[String: AnyHashable]` (as Valet writes them) hold one.
    @Test func anAccessControlIsHashableAndFitsAnAnyHashableQuery() throws {
        var error: Unmanaged<CFError>?
        let control = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, &error))
        let same = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, &error))
        let otherFlags = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .devicePasscode, &error))
        let otherClass = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAfterFirstUnlock, .userPresence, &error))
        #expect(control == same && control.hashValue == same.hashValue)
        #expect(control != otherFlags && control != otherClass)
        #expect(Set([control, same, otherFlags, otherClass]).count == 3)

        var query: [String: AnyHashable] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: "api.example.com",
            kSecAttrAccount as String: "alice",
            kSecValueData as String: Data("x".utf8),
        ]
        query[kSecAttrAccessControl as String] = control
        #expect(SecItemAdd(query as CFDictionary, nil) == errSecSuccess)
        #expect(readPassword("alice").0 == errSecInteractionNotAllowed, "the access control was applied")
        SecurityTesting.answerAuthentication(.approve)
        #expect(readPassword("alice").1 == "x")
    }

    /// SecAccessControl.m (`SecAccessControlCreateWithFlags`): two biometry constraints at once
    /// are refused with an error in the OSStatus domain.
    @Test func anImpossibleAccessControlIsRefusedWithAnError() throws {
        var error: Unmanaged<CFError>?
        let control = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, [.biometryAny, .biometryCurrentSet], &error)
        #expect(control == nil)
        let cfError = try #require(error?.takeRetainedValue())
        #expect(CFErrorGetDomain(cfError) as String == kCFErrorDomainOSStatus as String)
        #expect(CFErrorGetCode(cfError) == Int(errSecParam))
    }

    /// SecItemServer.c (`query_create`): a query without kSecClass is errSecParam.
    @Test func aQueryWithoutAClassIsAParameterError() {
        let query: [String: Any] = [kSecAttrAccount as String: "alice"]
        #expect(SecItemDelete(query as CFDictionary) == errSecParam)
    }

    /// The lock states (SecItemServer.c, keybag): an item readable only while unlocked is
    /// errSecInteractionNotAllowed while the device is locked.
    @Test func aLockedDeviceRefusesAWhenUnlockedItem() throws {
        #expect(addPassword("alice", "x", extra: [kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked]) == errSecSuccess)
        SecurityTesting.setLockState(.locked)
        #expect(readPassword("alice").0 == errSecInteractionNotAllowed)
        SecurityTesting.setLockState(.unlocked)
        #expect(readPassword("alice").1 == "x")
    }

    /// A share extension whose entitlements (its built `.appex`) lack the app's own group cannot
    /// see the app's item: errSecItemNotFound (SecItemServer.c filters by the caller's groups),
    /// until the app writes it to the group both share.
    @Test func anExtensionDoesNotSeeItsAppsItemUntilItIsShared() throws {
        try SecurityTesting.useInMemoryKeychain(.profile(path: fixtures + "/Bundles/Example.app"))
        #expect(addPassword("alice", "x") == errSecSuccess)
        #expect(addPassword("bob", "y", extra: [kSecAttrAccessGroup as String: shared]) == errSecSuccess)
        try SecurityTesting.actAs(.profile(path: fixtures + "/Bundles/Example.app/PlugIns/Share.appex"))
        #expect(readPassword("alice").0 == errSecItemNotFound)
        #expect(readPassword("bob").1 == "y")
        #expect(addPassword("carol", "z", extra: [kSecAttrAccessGroup as String: app]) == errSecMissingEntitlement)
        #expect(SecurityTesting.lastFailure?.contains(shared) == true)
    }

    /// SecItem.h (SecItemDelete): every match is deleted (its default limit is all), then nothing is
    /// found (errSecItemNotFound).
    @Test func deleteRemovesEveryMatch() {
        #expect(addPassword("alice", "x") == errSecSuccess)
        #expect(addPassword("bob", "y") == errSecSuccess)
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "api.example.com"]
        #expect(SecItemDelete(query as CFDictionary) == errSecSuccess)
        #expect(SecItemDelete(query as CFDictionary) == errSecItemNotFound)
    }

    /// Wrappers call from many threads at once (keychain-swift's ConcurrencyTests); securityd
    /// serves calls one transaction at a time (SecItemServer.c), so every call returns a status and
    /// the data stays whole.
    @Test func callsFromManyThreadsAtOnceTakeTurns() {
        #expect(addPassword("shared", "value") == errSecSuccess)
        let failures = Counter()
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            if index % 4 == 0 {
                if addPassword("thread-\(index)", "v\(index)") != errSecSuccess { failures.increment() }
            } else if readPassword("shared").1 != "value" {
                failures.increment()
            }
        }
        #expect(failures.value == 0)
    }

    /// SecDb.c (`SecDbBindObject`) binds a CFString as text and CFData as a blob, which SQLite
    /// keeps apart: an account stored as data is not found by the string of its bytes, and the two
    /// are two items. Empty data binds as the empty string, so an item added without an account is
    /// found by either.
    @Test func anAccountStoredAsDataIsNotFoundByItsString() throws {
        let add: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "api.example.com",
            kSecAttrAccount as String: Data("alice".utf8), kSecValueData as String: Data("x".utf8),
        ]
        #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
        #expect(readPassword("alice").0 == errSecItemNotFound)
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "api.example.com",
            kSecAttrAccount as String: Data("alice".utf8), kSecReturnAttributes as String: true,
        ]
        var result: CFTypeRef?
        #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
        #expect((result as? [String: Any])?[kSecAttrAccount as String] as? Data == Data("alice".utf8))
        // The string account of the same bytes is another primary key: a second item, not a duplicate.
        #expect(addPassword("alice", "y") == errSecSuccess)
        #expect(readPassword("alice").1 == "y")
        #expect(SecItemAdd(add as CFDictionary, nil) == errSecDuplicateItem)

        let noAccount: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "other"]
        #expect(SecItemAdd(noAccount as CFDictionary, nil) == errSecSuccess)
        query = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "other", kSecAttrAccount as String: Data()]
        #expect(SecItemCopyMatching(query as CFDictionary, nil) == errSecSuccess)
        query[kSecAttrAccount as String] = ""
        #expect(SecItemCopyMatching(query as CFDictionary, nil) == errSecSuccess)
    }

    /// SecDbItem.c (`copyNumber`): a port that is not exactly an integer is kept as the string
    /// given on iOS; macOS's SecItem refuses it with errSecParam (SecItemTests.m, testBadPort).
    @Test(arguments: [SecurityTesting.Platform.ios, .macos])
    func anEmptyPortIsStoredOnIOSAndRefusedOnMacOS(_ platform: SecurityTesting.Platform) throws {
        try SecurityTesting.useInMemoryKeychain(.accessGroups([app], platform: platform))
        let add: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com", kSecAttrPort as String: "",
            kSecValueData as String: Data("x".utf8),
        ]
        #expect(SecItemAdd(add as CFDictionary, nil) == (platform == .ios ? errSecSuccess : errSecParam))
        let numbered: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com", kSecAttrPort as String: 8443,
            kSecReturnAttributes as String: true,
        ]
        #expect(SecItemAdd(numbered as CFDictionary, nil) == errSecSuccess)
        var result: CFTypeRef?
        #expect(SecItemCopyMatching(numbered as CFDictionary, &result) == errSecSuccess)
        #expect((result as? [String: Any])?[kSecAttrPort as String] as? Int == 8443)
    }

    /// SecBase.h: the statuses and their messages (SecCopyErrorMessageString); SecItem.h's
    /// constants hold the strings Apple's framework gives them (SecItemConstants.c).
    @Test func statusesAndMessagesAreApples() {
        #expect(errSecItemNotFound == -25300)
        #expect(errSecMissingEntitlement == -34018)
        #expect(SecCopyErrorMessageString(errSecDuplicateItem, nil) as String? == "The specified item already exists in the keychain.")
        #expect(kSecAttrAccessGroup as String == "agrp")
        #expect(String(kSecValueData) == "v_Data")
    }

    /// SecAccessControl.h: the flags' bits, as code that stores or compares them sees them.
    @Test func accessControlFlagsHaveApplesBits() {
        #expect(SecAccessControlCreateFlags.userPresence.rawValue == 1 << 0)
        #expect(SecAccessControlCreateFlags.biometryAny.rawValue == 1 << 1)
        #expect(SecAccessControlCreateFlags.biometryCurrentSet.rawValue == 1 << 3)
        #expect(SecAccessControlCreateFlags.devicePasscode.rawValue == 1 << 4)
        #expect(SecAccessControlCreateFlags.or.rawValue == 1 << 14 && SecAccessControlCreateFlags.and.rawValue == 1 << 15)
        #expect(SecAccessControlCreateFlags.privateKeyUsage.rawValue == 1 << 30)
        #expect(SecAccessControlCreateFlags.applicationPassword.rawValue == 1 << 31)
        // iOS 18's companion (a paired watch) compiles, and is refused: nobody here can answer it.
        #expect(SecAccessControlCreateFlags.companion.rawValue == 1 << 5)
        var error: Unmanaged<CFError>?
        #expect(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, [.companion, .or, .userPresence], &error) == nil)
        #expect(error.map { CFErrorGetCode($0.takeRetainedValue()) } == Int(errSecParam))
    }

    /// SecItem.h (iOS 18): kSecMatchHostOrSubdomainOfHost finds the internet passwords of a host
    /// and its subdomains, not a host that merely ends in the same letters; a delete with it
    /// removes those alone; a generic password query with it is errSecUnimplemented.
    @Test func aHostMatchFindsTheHostAndItsSubdomains() throws {
        for server in ["example.com", "API.example.com", "badexample.com", "example.org"] {
            let item: [String: Any] = [
                kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: server, kSecAttrAccount as String: "alice",
                kSecValueData as String: Data(server.utf8),
            ]
            #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
        }
        let query: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword, kSecMatchHostOrSubdomainOfHost as String: "Example.com",
            kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true,
        ]
        let (status, result) = copyMatching(query)
        #expect(status == errSecSuccess)
        let servers = ((result as? [[String: Any]]) ?? []).compactMap { $0[kSecAttrServer as String] as? String }.sorted()
        #expect(servers == ["API.example.com", "example.com"])
        let deletion: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword, kSecMatchHostOrSubdomainOfHost as String: "example.com",
        ]
        #expect(SecItemDelete(deletion as CFDictionary) == errSecSuccess)
        #expect(copyMatching(query).0 == errSecItemNotFound)
        let rest: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword, kSecMatchLimit as String: kSecMatchLimitAll,
            kSecReturnAttributes as String: true,
        ]
        #expect((copyMatching(rest).1 as? [[String: Any]])?.count == 2)
        let generic: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecMatchHostOrSubdomainOfHost as String: "example.com",
        ]
        #expect(copyMatching(generic).0 == errSecUnimplemented)
        #expect(SecurityTesting.lastFailure == "unsupported kSecMatchHostOrSubdomainOfHost attribute")
    }

    /// SecRandom.h: SecRandomCopyBytes with kSecRandomDefault fills the buffer and returns errSecSuccess.
    @Test func randomBytesAreFilled() {
        var bytes = [UInt8](repeating: 0, count: 32)
        #expect(SecRandomCopyBytes(kSecRandomDefault, bytes.count, &bytes) == errSecSuccess)
        #expect(bytes.contains { $0 != 0 })
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
