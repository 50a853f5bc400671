import Foundation
import KeychainTestSupport
import Testing

@testable import KeychainCore

/// Fixture profiles and throwaway keychains for in-process tests.
enum Fixtures {
    /// `Fixtures/Profiles` in the package.
    static let profiles = PackagePaths.fixtures + "/Profiles"

    /// The group every fixture app and extension shares.
    static let sharedGroup = "SKMME9E2Y8.com.example.shared"

    /// A file of `Fixtures/Certificates`, read whole.
    static func certificateFile(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: profiles + "/../Certificates/" + name)))
    }

    /// The path of fixture profile `name`.
    static func path(_ name: String) -> String { "\(profiles)/\(name)" }

    /// A fixture profile loaded as the CLI would.
    static func profile(
        _ name: String, provisioning: String? = nil, teamID: String? = nil, platform: Platform? = nil, allowWildcard: Bool = false
    ) throws -> Profile {
        try Profile.load(
            path: path(name), provisioning: provisioning.map(path), teamID: teamID, platform: platform, allowWildcard: allowWildcard)
    }

    /// The caller of fixture profile `name`.
    static func caller(_ name: String) throws -> Caller { Caller(try profile(name)) }
}

/// A keychain in a fresh temporary folder, removed when released.
final class TemporaryKeychain {
    let folder: String
    let path: String
    let key: SecretBytes
    let keychain: Keychain

    init() throws {
        folder = NSTemporaryDirectory() + "keychainctl-test-" + UUID().uuidString
        path = folder + "/keychain.db"
        key = SecretBytes.random(count: 32)
        try Keychain.create(path: path, credential: .key(key))
        keychain = try Keychain(path: path, credential: .key(key))
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    /// Reopens the file (a second process's view).
    func reopen() throws -> Keychain { try Keychain(path: path, credential: .key(key)) }

    /// A request from attribute pairs and the command line's words for the limit and returns,
    /// parsed as its edge parses them (an invalid word stays one, for the operation to refuse).
    static func request(_ pairs: [(String, String)], class itemClass: String? = nil, limit: String? = nil, returns: [String] = [])
        -> ItemRequest
    {
        ItemRequest(
            itemClass: itemClass, words: pairs.map { (code: $0.0, value: $0.1) }, limit: limit.map { Given(parsing: $0) },
            returns: returns.isEmpty ? nil : Given(parsing: returns))
    }

    /// Adds an item with `secret`.
    @discardableResult
    func add(_ pairs: [(String, String)], secret: String = "s3cret", class itemClass: String? = nil, as caller: Caller)
        throws -> Item
    {
        try keychain.add(Self.request(pairs, class: itemClass), secret: SecretBytes(copying: Array(secret.utf8)), caller: caller).item
    }
}

/// Runs SQL against the file directly, as an attacker with the file but not the key would.
func tamper(_ path: String, _ sql: String) throws {
    let connection = try SQLiteConnection(path: path, create: false)
    try connection.execute(sql)
}

/// The status a throwing call ended with: 0 for success, the OSStatus for a KeychainError.
func status(_ body: () throws -> Void) -> Int32 {
    do {
        try body()
        return 0
    } catch let error as KeychainError {
        return error.status.rawValue
    } catch {
        Issue.record("unexpected error \(error)")
        return 1
    }
}

extension SecretBytes {
    /// The bytes as a string, for assertions.
    var string: String { withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
}
