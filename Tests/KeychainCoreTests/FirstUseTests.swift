import Foundation
import KeychainFoundation
import Testing

@testable import KeychainCore

/// The library's first call on a missing default keychain creates it (`ProcessSettings.ensureKeychain`):
/// processes starting together make one keychain and one key, and a key file already there is the
/// one used.
@Suite struct FirstUseTests {
    /// A fresh folder, removed afterwards.
    private static func folder() -> String { NSTemporaryDirectory() + "keychainctl-first-use-" + UUID().uuidString }

    /// Eight callers at once, as eight app processes launched together: every one succeeds, there is
    /// one keychain, and the key file they all read opens it.
    @Test func callersStartingTogetherMakeOneKeychainAndOneKey() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/data/keychainctl/keychain.db"
        let keyFile = folder + "/config/keychainctl/keychain.key"
        final class Failures: @unchecked Sendable {
            let lock = NSLock()
            var errors: [String] = []
        }
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            do { try ProcessSettings.createKeychain(at: path, keyFile: keyFile) } catch {
                failures.lock.withLock { failures.errors.append("\(error)") }
            }
        }
        #expect(failures.errors.isEmpty, "\(failures.errors)")
        let key = try SecretFiles.key(fromFile: keyFile)
        _ = try Keychain(path: path, credential: key)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder + "/config/keychainctl")
        #expect(leftovers == ["keychain.key"], "temporary files left: \(leftovers)")
        var status = stat()
        #expect(stat(keyFile, &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(stat(folder + "/config/keychainctl", &status) == 0 && status.st_mode & 0o777 == 0o700)
    }

    /// A default key file that outlived its keychain (the file deleted, the key kept) opens the new
    /// one, and is not rewritten.
    @Test func aKeyFileAlreadyThereIsTheOneUsed() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let keyFile = folder + "/keychain.key"
        let written = try KeyFile.writeNew(to: keyFile)
        let before = try String(contentsOfFile: keyFile, encoding: .utf8)
        try ProcessSettings.createKeychain(at: folder + "/keychain.db", keyFile: keyFile)
        #expect(try String(contentsOfFile: keyFile, encoding: .utf8) == before)
        _ = try Keychain(path: folder + "/keychain.db", credential: written)
        // A second writer of the key file is refused and the key kept.
        #expect(throws: ConfigurationError.self) { _ = try KeyFile.writeNew(to: keyFile) }
        #expect(try String(contentsOfFile: keyFile, encoding: .utf8) == before)
    }
}
