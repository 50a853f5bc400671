import Foundation
import Testing

@testable import KeychainCore

/// PKCS#12 files read as SecPKCS12Import reads them (docs/FIDELITY.md), modern and legacy, and every
/// hostile variation refused with errSecDecode or errSecAuthFailed, never a crash or a hang.
@Suite struct PKCS12Tests {
    static let passphrase = SecretBytes(copying: Array("fixture".utf8))

    static func archive(_ name: String, passphrase: SecretBytes = passphrase) throws -> PKCS12Archive {
        try PKCS12Archive(der: SecretBytes(copying: try Fixtures.certificateFile(name)), passphrase: passphrase)
    }

    static func status(of bytes: [UInt8], passphrase: SecretBytes = passphrase) -> Int32 {
        KeychainCoreTests.status { _ = try PKCS12Archive(der: SecretBytes(copying: bytes), passphrase: passphrase) }
    }

    @Test func aModernFileHoldsOneIdentityAndItsChain() throws {
        let archive = try Self.archive("identity-modern.p12")
        #expect(archive.identities.count == 1 && archive.unpairedKeys == 0)
        let identity = try #require(archive.identities.first)
        #expect(identity.certificate.summary == "ci signing")
        #expect(identity.key.attributes["klbl"] == .data(identity.certificate.publicKeyHash))
        #expect(archive.certificates.map(\.summary) == ["Fixture Intermediate", "  Fixture   Root CA "])
    }

    /// RC2-40 for the certificates and 3DES for the key, with a SHA-1 MAC: what older Keychain
    /// Access and Windows exports hold. OpenSSL's default provider has no RC2.
    @Test func aLegacyRC2FileOpens() throws {
        let archive = try Self.archive("identity-legacy.p12")
        #expect(archive.identities.map(\.certificate.summary) == ["Développeur RSA"])
        #expect(archive.identities.first?.key.attributes["type"] == .string("42"))
        #expect(archive.certificates.map(\.summary) == ["  Fixture   Root CA "])
        #expect(try Self.archive("identity-legacy-nomac.p12").identities.count == 1)
    }

    @Test func severalIdentitiesArePairedByTheirPublicKeys() throws {
        let archive = try Self.archive("identity-multiple.p12")
        #expect(archive.identities.map(\.certificate.summary) == ["ci signing", "Développeur RSA"])
        #expect(archive.identities.allSatisfy { $0.key.attributes["klbl"] == .data($0.certificate.publicKeyHash) })
        #expect(archive.certificates.count == 1)
    }

    @Test func filesWithoutAnIdentityAreReadAsWhatTheyHold() throws {
        let certificates = try Self.archive("certificates-only.p12")
        #expect(certificates.identities.isEmpty && certificates.certificates.count == 2)
        let key = try Self.archive("key-only.p12")
        #expect(key.identities.isEmpty && key.certificates.isEmpty && key.unpairedKeys == 1)
    }

    @Test func aWrongPassphraseIsAuthFailedForEveryScheme() {
        let wrong = SecretBytes(copying: Array("wrong".utf8))
        for name in ["identity-modern.p12", "identity-legacy.p12", "identity-legacy-nomac.p12", "identity-multiple.p12"] {
            #expect(KeychainCoreTests.status { _ = try Self.archive(name, passphrase: wrong) } == -25293, "\(name)")
            #expect(KeychainCoreTests.status { _ = try Self.archive(name, passphrase: SecretBytes(count: 0)) } == -25293, "\(name)")
        }
    }

    @Test func unsupportedKeysAndHostileIterationCountsAreDecodeErrors() throws {
        #expect(KeychainCoreTests.status { _ = try Self.archive("identity-ed25519.p12") } == -26275)
        // 2^31-1 PBKDF2 iterations: refused by the file's iteration budget, which is checked
        // before any derivation runs (the refusal names it), not by a clock.
        #expect(throws: KeychainError.self) {
            do { _ = try Self.archive("hostile-iterations.p12") } catch let error as KeychainError {
                #expect(error.status.rawValue == -26275 && error.hint.contains("more key-derivation iterations than"), "\(error)")
                throw error
            }
        }
    }

    @Test func truncatedGarbageAndFlippedFilesNeverCrash() throws {
        let bytes = try Fixtures.certificateFile("identity-legacy.p12")
        for length in stride(from: 0, to: bytes.count, by: 41) {
            let status = Self.status(of: Array(bytes.prefix(length)))
            #expect(status == -26275 || status == -25293, "prefix \(length): \(status)")
        }
        #expect(Self.status(of: bytes + [0]) == -26275, "a trailing byte")
        #expect(Self.status(of: (0..<4_096).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }) == -26275)
        var nested: [UInt8] = []
        for _ in 0..<2_000 { nested += [0x30, 0x80] }
        #expect(Self.status(of: nested) == -26275)
        // Every byte flipped in turn: the MAC (or the structure) refuses each; nothing is read wrong.
        for index in stride(from: 0, to: bytes.count, by: 13) {
            var flipped = bytes
            flipped[index] ^= 0x5A
            let status = Self.status(of: flipped)
            #expect(status == -26275 || status == -25293, "byte \(index): \(status)")
        }
    }

    @Test func anImportAddsIdentitiesAndCertificatesAndTreatsStoredOnesAsSuccess() throws {
        let temporary = try TemporaryKeychain()
        let caller = try Fixtures.caller("app.plist")
        let keychain = temporary.keychain
        let first = try keychain.importPKCS12(
            try Self.archive("identity-modern.p12"), request: ItemRequest(), caller: caller, dryRun: false)
        #expect(first.identitiesAdded == 1 && first.certificatesAdded == 2 && first.identitiesPresent == 0)
        let again = try keychain.importPKCS12(
            try Self.archive("identity-multiple.p12"), request: ItemRequest(), caller: caller, dryRun: false)
        #expect(again.identitiesAdded == 1 && again.identitiesPresent == 1 && again.certificatesPresent == 1)
        let found = try keychain.find(ItemRequest(itemClass: "idnt", limit: .value(.all)), caller: caller)
        #expect(found.items.count == 2)
        // No identity: errSecParam, nothing written.
        #expect(
            KeychainCoreTests.status {
                _ = try keychain.importPKCS12(try Self.archive("key-only.p12"), request: ItemRequest(), caller: caller, dryRun: false)
            } == -50)
        // A dry run adds nothing.
        let other = try TemporaryKeychain()
        let dry = try other.keychain.importPKCS12(
            try Self.archive("identity-legacy.p12"), request: ItemRequest(), caller: caller, dryRun: true)
        #expect(dry.identitiesAdded == 1 && dry.dryRun)
        #expect(KeychainCoreTests.status { _ = try other.keychain.find(ItemRequest(itemClass: "cert"), caller: caller) } == -25300)
    }
}
