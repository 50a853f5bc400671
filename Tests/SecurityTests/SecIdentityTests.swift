import Foundation
import KeychainCore
import Security
import SecurityTesting
import Testing

// Identities through `import Security`, as app code reads a client certificate and keeps it:
// SecPKCS12Import, then SecItemAdd, SecItemCopyMatching and SecItemDelete by the identity, as
// `SecItem.m` (`explode_identity`) makes them: on the certificate, then on the private key.

private let app = "SKMME9E2Y8.com.example.app"

/// SecPKCS12Import of a fixture: its status and items.
private func importPKCS12(_ name: String, _ options: [String: Any] = [kSecImportExportPassphrase as String: "fixture"]) throws
    -> (OSStatus, [[String: Any]])
{
    var items: CFArray?
    let status = SecPKCS12Import(try fixture(name) as CFData, options as CFDictionary, &items)
    return (status, (items as? [[String: Any]]) ?? [])
}

/// The one identity of `identity-modern.p12` (the EC leaf, with its intermediate and root).
private func importedIdentity() throws -> SecIdentity {
    let (status, items) = try importPKCS12("identity-modern.p12")
    #expect(status == errSecSuccess)
    return try #require(items.first?[kSecImportItemIdentity as String] as? SecIdentity)
}

@Suite struct SecIdentityTests {
    let keychain: SecurityTesting.Lease

    init() async throws { keychain = try await SecurityTesting.Lease(inMemory: .accessGroups([app])) }

    /// SecImportExport.c `SecPKCS12Import`: one dictionary per identity, its certificate the leaf,
    /// its private key the leaf's (it signs what the leaf's public key verifies), its chain the
    /// leaf and then its issuers; nothing is stored without kSecUseDataProtectionKeychain.
    @Test func aPKCS12FileGivesItsIdentityAndChainAndStoresNothing() throws {
        let (status, items) = try importPKCS12("identity-modern.p12")
        #expect(status == errSecSuccess && items.count == 1)
        let identity = try #require(items.first?[kSecImportItemIdentity as String] as? SecIdentity)
        var certificate: SecCertificate?
        var privateKey: SecKey?
        #expect(SecIdentityCopyCertificate(identity, &certificate) == errSecSuccess)
        #expect(SecIdentityCopyPrivateKey(identity, &privateKey) == errSecSuccess)
        #expect(certificate == SecCertificateCreateWithData(nil, try fixture("leaf-ec.der") as CFData))
        let key = try #require(privateKey)
        let publicPoint = try fixture("leaf-ec-public.der").suffix(65)
        #expect(SecKeyCopyExternalRepresentation(try #require(SecKeyCopyPublicKey(key)), nil) as Data? == Data(publicPoint))

        let chain = try #require(items.first?[kSecImportItemCertChain as String] as? [SecCertificate])
        #expect(
            chain.compactMap { SecCertificateCopySubjectSummary($0) as String? } == [
                "ci signing", "Fixture Intermediate", "  Fixture   Root CA ",
            ])
        #expect(copyMatching([kSecClass as String: kSecClassIdentity]).0 == errSecItemNotFound)
        #expect(copyMatching([kSecClass as String: kSecClassCertificate]).0 == errSecItemNotFound)
    }

    /// SecImportExport.c: each item also carries a trust for its chain (kSecImportItemTrust), the
    /// X.509 basic policy's, which anchored at the file's root trusts the leaf; SecIdentityCreate
    /// pairs a certificate with a key as Apple's does.
    @Test func theImportedTrustAndAnIdentityMadeFromItsHalves() throws {
        let (_, items) = try importPKCS12("identity-modern.p12")
        let trust = try #require(items.first?[kSecImportItemTrust as String] as? SecTrust)
        let chain = try #require(items.first?[kSecImportItemCertChain as String] as? [SecCertificate])
        #expect(SecTrustSetAnchorCertificates(trust, [try #require(chain.last)] as CFArray) == errSecSuccess)
        // The fixtures' dates are fixed: evaluated within their validity.
        let notBefore = try #require(SecCertificateCopyNotValidBeforeDate(chain[0]) as Date?)
        #expect(SecTrustSetVerifyDate(trust, notBefore.addingTimeInterval(60) as CFDate) == errSecSuccess)
        var error: CFError?
        #expect(SecTrustEvaluateWithError(trust, &error), "\(String(describing: error))")
        #expect(SecTrustGetCertificateCount(trust) == 3)
        let identity = try importedIdentity()
        var certificate: SecCertificate?
        var privateKey: SecKey?
        SecIdentityCopyCertificate(identity, &certificate)
        SecIdentityCopyPrivateKey(identity, &privateKey)
        let halves = (try #require(certificate), try #require(privateKey))
        let made = try #require(SecIdentityCreate(nil, halves.0, halves.1))
        #expect(made == identity && CFGetTypeID(made) == SecIdentityGetTypeID())
        #expect(SecCertificateCopySerialNumber(chain[0]) as Data? == SecCertificateCopySerialNumberData(chain[0], nil) as Data?)
        #expect(errSecDskFull == errSecDiskFull)
    }

    /// SecImportExport.c: a wrong (or missing) passphrase is errSecAuthFailed, a file that is not
    /// PKCS#12 errSecDecode; neither crashes or hangs.
    @Test func aWrongPassphraseOrABrokenFileIsAStatus() throws {
        #expect(try importPKCS12("identity-modern.p12", [kSecImportExportPassphrase as String: "wrong"]).0 == errSecAuthFailed)
        #expect(try importPKCS12("identity-modern.p12", [:]).0 == errSecAuthFailed)
        #expect(try importPKCS12("leaf-ec.der").0 == errSecDecode)
        // Options that hold themselves are read without walking them.
        let selfHolding = NSMutableArray()
        selfHolding.add(selfHolding)
        #expect(try importPKCS12("identity-modern.p12", [kSecImportExportPassphrase as String: selfHolding]).0 == errSecAuthFailed)
        let storing: [String: Any] = [
            kSecImportExportPassphrase as String: "fixture", kSecUseDataProtectionKeychain as String: true,
            kSecAttrLabel as String: selfHolding,
        ]
        #expect(try importPKCS12("identity-modern.p12", storing).0 == errSecParam)
        // Refused by the file's iteration budget before any derivation (PKCS12Tests shows the
        // refusal is the budget's); a derivation of 2^31-1 iterations would hit the suite's limits.
        #expect(try importPKCS12("hostile-iterations.p12").0 == errSecDecode)
    }

    /// SecItem.m `explode_identity`: an identity is added as its certificate and its key (a
    /// certificate already stored is no failure; a second add is errSecDuplicateItem, both halves
    /// being there); its persistent reference is `idnt` and the certificate's UUID; a find by class
    /// returns the identity by kSecReturnRef; a delete by it removes both halves.
    @Test func anIdentityIsAddedFoundAndDeleted() throws {
        let identity = try importedIdentity()
        var added: CFTypeRef?
        let add: [String: Any] = [kSecValueRef as String: identity, kSecReturnPersistentRef as String: true]
        #expect(SecItemAdd(add as CFDictionary, &added) == errSecSuccess)
        let reference = try #require(added as? Data)
        #expect(reference.count == 20 && reference.prefix(4) == Data("idnt".utf8))
        #expect(SecItemAdd([kSecValueRef as String: identity] as CFDictionary, nil) == errSecDuplicateItem)
        // With the key gone and the certificate still there, the identity is added again.
        var privateKey: SecKey?
        #expect(SecIdentityCopyPrivateKey(identity, &privateKey) == errSecSuccess)
        #expect(SecItemDelete([kSecValueRef as String: try #require(privateKey)] as CFDictionary) == errSecSuccess)
        #expect(SecItemAdd([kSecValueRef as String: identity] as CFDictionary, nil) == errSecSuccess)

        let byClass: [String: Any] = [kSecClass as String: kSecClassIdentity, kSecReturnRef as String: true]
        #expect(copyMatching(byClass).1 as? SecIdentity == identity)
        var both = byClass
        both[kSecReturnAttributes as String] = true
        let found = try #require(copyMatching(both).1 as? [String: Any])
        #expect(found[kSecValueRef as String] as? SecIdentity == identity)
        #expect(found[kSecAttrLabel as String] as? String == "ci signing")
        let byReference: [String: Any] = [kSecValueRef as String: identity, kSecReturnPersistentRef as String: true]
        #expect(copyMatching(byReference).1 as? Data == reference)

        #expect(SecItemDelete([kSecValueRef as String: identity] as CFDictionary) == errSecSuccess)
        #expect(copyMatching([kSecClass as String: kSecClassCertificate]).0 == errSecItemNotFound)
        #expect(copyMatching([kSecClass as String: kSecClassKey]).0 == errSecItemNotFound)
    }

    /// SecImportExport.c `SecPKCS12ImportToModernKeychain`: with kSecUseDataProtectionKeychain
    /// the identity is stored with the other options (here a label), and an import of the same
    /// file again counts what is there as added; another app's groups do not reach it.
    @Test func anImportIntoTheKeychainStoresTheIdentityInTheCallersGroups() throws {
        let options: [String: Any] = [
            kSecImportExportPassphrase as String: "fixture", kSecUseDataProtectionKeychain as String: true,
        ]
        #expect(try importPKCS12("identity-modern.p12", options).0 == errSecSuccess)
        #expect(try importPKCS12("identity-modern.p12", options).0 == errSecSuccess)
        let identity = try importedIdentity()
        let query: [String: Any] = [kSecClass as String: kSecClassIdentity, kSecReturnRef as String: true]
        #expect(copyMatching(query).1 as? SecIdentity == identity)

        try SecurityTesting.actAs(.accessGroups(["SKMME9E2Y8.com.example.other"]))
        #expect(copyMatching(query).0 == errSecItemNotFound)
        #expect(SecItemDelete([kSecValueRef as String: identity] as CFDictionary) == errSecItemNotFound)
    }

    /// kSecImportToMemoryOnly (iOS 18, macOS 15): the identity comes back to use, and nothing is
    /// stored, even beside kSecUseDataProtectionKeychain.
    @Test func anImportToMemoryOnlyStoresNothing() throws {
        let options: [String: Any] = [
            kSecImportExportPassphrase as String: "fixture", kSecUseDataProtectionKeychain as String: true,
            kSecImportToMemoryOnly as String: true,
        ]
        let (status, items) = try importPKCS12("identity-modern.p12", options)
        #expect(status == errSecSuccess && items.first?[kSecImportItemIdentity as String] is SecIdentity)
        let query: [String: Any] = [kSecClass as String: kSecClassIdentity, kSecReturnRef as String: true]
        #expect(copyMatching(query).0 == errSecItemNotFound)
        #expect(copyMatching([kSecClass as String: kSecClassCertificate]).0 == errSecItemNotFound)
    }

    /// The review's L2: a file whose 2,000 certificates issue one another in a ring (X by Y, Y by
    /// X, each of the thousand of a subject distinct) made the chain search take minutes per
    /// identity. The chain takes each once, in one step each (counted, not timed: a busy machine's
    /// clock would fail a linear search, or pass a slow one); a file larger than the
    /// command reads (1 MiB) is errSecDecode before it is parsed.
    @Test func aRingOfCertificatesBuildsItsChainInOneStepACertificate() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ring-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let make = """
            set -e
            cd "$1"
            printf '[ca]\\ndefault_ca=here\\n[here]\\ndatabase=index.txt\\nnew_certs_dir=out\\nserial=serial\\ndefault_md=sha256\\n'\\
            'default_days=30\\npolicy=any\\nunique_subject=no\\n[any]\\ncommonName=supplied\\n' > ca.cnf
            mkdir out; : > index.txt; echo 1000 > serial
            openssl ecparam -name prime256v1 -genkey -noout -out k.pem
            for name in X Y; do
                openssl req -new -x509 -key k.pem -subj "/CN=$name" -days 30 -out "$name.pem"
                openssl req -new -key k.pem -subj "/CN=$name" -out "$name.csr"
            done
            xs=(); ys=(); for i in $(seq 1000); do xs+=(X.csr); ys+=(Y.csr); done
            openssl ca -config ca.cnf -batch -notext -cert Y.pem -keyfile k.pem -out /dev/null -infiles "${xs[@]}" 2> /dev/null
            openssl ca -config ca.cnf -batch -notext -cert X.pem -keyfile k.pem -out /dev/null -infiles "${ys[@]}" 2> /dev/null
            openssl x509 -req -in X.csr -CA Y.pem -CAkey k.pem -set_serial 7 -days 30 -out leaf.pem 2> /dev/null
            cat out/*.pem > ring.pem
            openssl pkcs12 -export -inkey k.pem -in leaf.pem -certfile ring.pem -passout pass:ring -out ring.p12
            """
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/bash")
        shell.arguments = ["-c", make, "bash", folder.path]
        shell.standardInput = FileHandle.nullDevice
        shell.standardOutput = FileHandle.nullDevice
        try shell.run()
        let watchdog = DispatchWorkItem { shell.terminate() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
        shell.waitUntilExit()
        watchdog.cancel()
        #expect(shell.terminationStatus == 0)
        let file = try Data(contentsOf: folder.appendingPathComponent("ring.p12"))
        var items: CFArray?
        // Bounded by work, not by the clock: each certificate is taken once, in one step.
        let steps = WorkCounter()
        let status = ChainSteps.$counted.withValue(steps) {
            SecPKCS12Import(file as CFData, [kSecImportExportPassphrase as String: "ring"] as CFDictionary, &items)
        }
        #expect(status == errSecSuccess)
        let chain = try #require((items as? [[String: Any]])?.first?[kSecImportItemCertChain as String] as? [SecCertificate])
        #expect(chain.count == 2001, "the leaf, then each of the 2,000 once")
        // One step per certificate the chain takes, and the one that finds the ring's all taken.
        #expect(steps.value == 2001, "\(steps.value) steps for a chain of 2,000 above the leaf")
        var none: CFArray?
        #expect(SecPKCS12Import(Data(count: (1 << 20) + 1) as CFData, [:] as CFDictionary, &none) == errSecDecode)
    }
}
