import Foundation
import Security
import Testing

/// Certificate chains made with the `openssl` tool at test time (a root, an intermediate, leaves),
/// each evaluated through SecTrust and by `openssl verify` on the same files: the two agree on
/// every verdict, and SecTrust reports Apple's statuses and results.
final class ChainFolder: Sendable {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "keychainctl-trust-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n".write(
            toFile: path + "/ca.ext", atomically: true, encoding: .utf8)
        try "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n".write(
            toFile: path + "/not-ca.ext", atomically: true, encoding: .utf8)
        try
            "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:www.example.test\n"
            .write(toFile: path + "/leaf.ext", atomically: true, encoding: .utf8)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Runs `openssl` with `arguments` in the folder (killed after 30 s); its status and output.
    @discardableResult
    func openssl(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: path)
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
        defer { watchdog.cancel() }
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    /// A self-signed CA named `name` (`name`.pem, `name`.key).
    func root(_ name: String) throws {
        let made = try openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", name + ".key", "-out",
            name + ".pem",
            "-subj", "/CN=\(name)", "-days", "3650", "-addext", "basicConstraints=critical,CA:TRUE", "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
        ])
        #expect(made.status == 0, "\(made.output)")
    }

    /// A certificate `name` issued by `issuer` with the extensions of `extensions`.ext.
    func issue(_ name: String, by issuer: String, extensions: String, days: Int = 3650) throws {
        let request = try openssl([
            "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", name + ".key", "-out",
            name + ".csr",
            "-subj", "/CN=\(name)",
        ])
        #expect(request.status == 0, "\(request.output)")
        let signed = try openssl([
            "x509", "-req", "-in", name + ".csr", "-CA", issuer + ".pem", "-CAkey", issuer + ".key", "-CAcreateserial", "-out",
            name + ".pem",
            "-days", String(days), "-extfile", extensions + ".ext",
        ])
        #expect(signed.status == 0, "\(signed.output)")
    }

    func certificate(_ name: String) throws -> SecCertificate {
        let pem = try String(contentsOfFile: path + "/" + name + ".pem", encoding: .utf8)
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let der = try #require(Data(base64Encoded: body))
        return try #require(SecCertificateCreateWithData(nil, der as CFData))
    }
}

@Suite struct SecTrustTests {
    /// One case: the leaf, its intermediates, the anchor, the host and the date.
    struct Case: CustomStringConvertible {
        let name: String
        let leaf: String
        let intermediates: [String]
        let anchor: String
        var host: String?
        var daysLater = 0
        /// The status SecTrustEvaluateWithError reports (nil: trusted).
        let status: OSStatus?
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "valid", leaf: "leaf", intermediates: ["intermediate"], anchor: "root", host: "www.example.test", status: nil),
        Case(
            name: "expired", leaf: "short", intermediates: ["intermediate"], anchor: "root", daysLater: 30, status: errSecCertificateExpired
        ),
        Case(name: "wrong anchor", leaf: "leaf", intermediates: ["intermediate"], anchor: "other-root", status: errSecNotTrusted),
        Case(
            name: "wrong host", leaf: "leaf", intermediates: ["intermediate"], anchor: "root", host: "other.example.test",
            status: errSecHostNameMismatch),
        Case(
            name: "CA:FALSE intermediate", leaf: "under-not-ca", intermediates: ["not-ca"], anchor: "root",
            status: errSecNoBasicConstraintsCA),
        Case(name: "missing intermediate", leaf: "leaf", intermediates: [], anchor: "root", status: errSecNotTrusted),
    ]

    /// The chains every case draws on, made once.
    static let folder: ChainFolder? = {
        guard let folder = try? ChainFolder() else { return nil }
        do {
            try folder.root("root")
            try folder.root("other-root")
            try folder.issue("intermediate", by: "root", extensions: "ca")
            try folder.issue("leaf", by: "intermediate", extensions: "leaf")
            try folder.issue("short", by: "intermediate", extensions: "leaf", days: 1)
            try folder.issue("not-ca", by: "root", extensions: "not-ca")
            try folder.issue("under-not-ca", by: "not-ca", extensions: "leaf")
        } catch {
            return nil
        }
        return folder
    }()

    @Test(arguments: cases)
    func secTrustAgreesWithOpenSSLVerify(_ testCase: Case) throws {
        let folder = try #require(Self.folder)
        let date = Date().addingTimeInterval(Double(testCase.daysLater) * 86400)
        // SecTrust, as Alamofire sets one up for pinned anchors.
        let certificates = try ([testCase.leaf] + testCase.intermediates).map(folder.certificate)
        let policy = testCase.host.map { SecPolicyCreateSSL(true, $0 as CFString) } ?? SecPolicyCreateBasicX509()
        var trust: SecTrust?
        #expect(SecTrustCreateWithCertificates(certificates as CFArray, policy, &trust) == errSecSuccess)
        let made = try #require(trust)
        #expect(SecTrustSetAnchorCertificates(made, [try folder.certificate(testCase.anchor)] as CFArray) == errSecSuccess)
        #expect(SecTrustSetAnchorCertificatesOnly(made, true) == errSecSuccess)
        #expect(SecTrustSetVerifyDate(made, date as CFDate) == errSecSuccess)
        var error: CFError?
        let trusted = SecTrustEvaluateWithError(made, &error)
        // openssl verify, on the same files at the same time.
        var verify = ["verify", "-CAfile", testCase.anchor + ".pem", "-partial_chain", "-attime", String(Int(date.timeIntervalSince1970))]
        for intermediate in testCase.intermediates { verify += ["-untrusted", intermediate + ".pem"] }
        if let host = testCase.host { verify += ["-purpose", "sslserver", "-verify_hostname", host] }
        let openssl = try folder.openssl(verify + [testCase.leaf + ".pem"])
        #expect(trusted == (openssl.status == 0), "SecTrust \(trusted), openssl verify: \(openssl.output)")
        #expect(trusted == (testCase.status == nil), "\(String(describing: error))")
        if let status = testCase.status {
            let nsError = try #require(error as Error?) as NSError
            #expect(nsError.domain == "NSOSStatusErrorDomain" && nsError.code == Int(status), "\(nsError)")
            #expect(nsError.localizedDescription.hasPrefix("“\(testCase.leaf)” certificate"), "\(nsError.localizedDescription)")
        } else {
            #expect(error == nil)
        }
        var result = SecTrustResultType.invalid
        #expect(SecTrustGetTrustResult(made, &result) == errSecSuccess)
        #expect(result == (trusted ? .unspecified : .recoverableTrustFailure))
    }

    /// A trusted chain: leaf, intermediate and anchor, in order; the key is the leaf's; a change of
    /// policy forgets the verdict; without anchors of its own the trust falls back on the system's
    /// store, which knows nothing of this root.
    @Test func aTrustedChainAndWhatChangesIt() throws {
        let folder = try #require(Self.folder)
        let leaf = try folder.certificate("leaf")
        var trust: SecTrust?
        #expect(
            SecTrustCreateWithCertificates(
                [leaf, try folder.certificate("intermediate")] as CFArray, SecPolicyCreateSSL(true, nil), &trust)
                == errSecSuccess)
        let made = try #require(trust)
        #expect(CFGetTypeID(made) == SecTrustGetTypeID() && CFGetTypeID(SecPolicyCreateBasicX509()) == SecPolicyGetTypeID())
        var result = SecTrustResultType.proceed
        #expect(SecTrustGetTrustResult(made, &result) == errSecSuccess && result == .invalid, "not evaluated yet")
        var error: CFError?
        #expect(!SecTrustEvaluateWithError(made, &error), "the system's store does not hold this root")
        #expect((error as NSError?)?.code == Int(errSecNotTrusted))
        #expect(SecTrustSetAnchorCertificates(made, [try folder.certificate("root")] as CFArray) == errSecSuccess)
        #expect(SecTrustEvaluateWithError(made, nil))
        let chain = try #require(SecTrustCopyCertificateChain(made) as? [SecCertificate])
        #expect(chain.count == 3 && SecTrustGetCertificateCount(made) == 3)
        #expect(chain == [leaf, try folder.certificate("intermediate"), try folder.certificate("root")])
        let key = try #require(SecTrustCopyKey(made))
        let leafKey = try #require(SecCertificateCopyKey(leaf))
        #expect(SecKeyCopyExternalRepresentation(key, nil) as Data? == SecKeyCopyExternalRepresentation(leafKey, nil) as Data?)
        #expect(SecTrustSetPolicies(made, SecPolicyCreateSSL(true, "other.example.test" as CFString)) == errSecSuccess)
        #expect(!SecTrustEvaluateWithError(made, nil), "a new policy is evaluated anew")
        // A revocation policy: nothing is fetched, so only one that requires an answer fails.
        let soft = try #require(SecPolicyCreateRevocation(kSecRevocationUseAnyAvailableMethod))
        #expect(SecTrustSetPolicies(made, [SecPolicyCreateBasicX509(), soft] as CFArray) == errSecSuccess)
        #expect(SecTrustEvaluateWithError(made, nil))
        let strict = try #require(SecPolicyCreateRevocation(kSecRevocationUseAnyAvailableMethod | kSecRevocationRequirePositiveResponse))
        #expect(SecTrustSetPolicies(made, strict) == errSecSuccess)
        #expect(!SecTrustEvaluateWithError(made, &error) && (error as NSError?)?.code == Int(errSecIncompleteCertRevocationCheck))
        // Neither a certificate nor an array of them is errSecParam.
        #expect(SecTrustCreateWithCertificates("leaf" as CFString, nil, &trust) == errSecParam)
    }

    /// Without anchors of its own a trust uses the system's store as Apple's system anchors: a root
    /// the store holds (any of /etc/ssl/certs, from the ca-certificates package) is trusted as it
    /// is; with an empty list of anchors and anchors-only, the same root is not.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/etc/ssl/certs/ca-certificates.crt"), "machine: ca-certificates"))
    func theSystemStoreAnchorsWhatItHolds() throws {
        let bundle = try String(contentsOfFile: "/etc/ssl/certs/ca-certificates.crt", encoding: .utf8)
        let first = try #require(bundle.components(separatedBy: "-----END CERTIFICATE-----").first)
        let body = first.components(separatedBy: "-----BEGIN CERTIFICATE-----").last?.split(separator: "\n").joined() ?? ""
        let der = try #require(Data(base64Encoded: body))
        let root = try #require(SecCertificateCreateWithData(nil, der as CFData))
        var trust: SecTrust?
        #expect(SecTrustCreateWithCertificates(root, SecPolicyCreateBasicX509(), &trust) == errSecSuccess)
        let made = try #require(trust)
        var error: CFError?
        #expect(SecTrustEvaluateWithError(made, &error), "\(String(describing: error))")
        #expect(SecTrustSetAnchorCertificates(made, [] as CFArray) == errSecSuccess)
        #expect(!SecTrustEvaluateWithError(made, &error) && (error as NSError?)?.code == Int(errSecNotTrusted))
        #expect(SecTrustSetAnchorCertificatesOnly(made, false) == errSecSuccess)
        #expect(SecTrustEvaluateWithError(made, nil), "the system's anchors are back")
    }
}
