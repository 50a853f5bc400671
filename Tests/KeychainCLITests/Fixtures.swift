import Foundation
import Synchronization
import Testing

@testable import KeychainCLI

/// What several suites of this target share: the fixtures' paths and groups, and a keychain of a
/// kind more than one suite needs. A helper one suite alone uses stays in that suite.
enum Fixtures {
    /// The group every fixture app and extension shares (`Fixtures/Profiles`).
    static let sharedGroup = "SKMME9E2Y8.com.example.shared"
    /// Built apps: an .ipa, an .xcarchive and the apps inside (`Fixtures/Bundles`).
    static let bundles = Sandbox.packageRoot + "/Fixtures/Bundles"
    /// Certificates, keys and PKCS#12 files (`Fixtures/Certificates`).
    static let certificates = Sandbox.packageRoot + "/Fixtures/Certificates"

    /// The passphrase of `passphraseKeychain`'s keychain.
    static let passphrase = "correct horse battery"

    /// A sandbox holding a passphrase keychain (cheap Argon2id) with one item, and the
    /// environment of a later call that has no credential at all.
    static func passphraseKeychain() throws -> (sandbox: Sandbox, bare: [String: String], withPassphrase: [String: String]) {
        let sandbox = try Sandbox(initialize: false)
        let withPassphrase = ["KEYCHAINCTL_KEY_FILE": "", "KEYCHAINCTL_PASSPHRASE": passphrase]
        #expect(sandbox.run(["init", "--kdf", "interactive"], profile: nil, environment: withPassphrase).status == 0)
        #expect(sandbox.run(["add", "-s", "api", "-a", "ci"], stdin: Data("SECRET-cached".utf8), environment: withPassphrase).status == 0)
        return (sandbox, ["KEYCHAINCTL_KEY_FILE": ""], withPassphrase)
    }

    /// Packs the test binary into `folder` (as `make dist` packs the release one). The packing is
    /// reproducible (`ReleaseTests` compares two runs), and takes 9 s of compression, so it runs
    /// once per test run and each caller gets a copy; `fresh` runs it anew.
    static func dist(_ sandbox: Sandbox, into folder: String, fresh: Bool = false) throws {
        let pack = { (destination: String) in
            let run = sandbox.run(
                [Sandbox.packageRoot + "/Scripts/dist.sh", "--bin", Sandbox.binary, destination], profile: nil, timeout: 120,
                executable: "/bin/bash")
            #expect(run.status == 0, "\(run.stderr)")
            return run.status == 0
        }
        if fresh {
            _ = pack(folder)
            return
        }
        let packed = try packedRelease.withLock { (packed: inout String?) throws -> String in
            if let packed { return packed }
            let made = NSTemporaryDirectory() + "keychainctl-dist-\(getpid())"
            try? FileManager.default.removeItem(atPath: made)
            guard pack(made) else { throw DistFailed() }
            packed = made
            atexit { Fixtures.packedRelease.withLock { $0 }.map { try? FileManager.default.removeItem(atPath: $0) } }
            return made
        }
        try FileManager.default.copyItem(atPath: packed, toPath: folder)
    }

    /// The folder `dist` packed once for this run (removed at exit).
    private static let packedRelease = Mutex<String?>(nil)

    private struct DistFailed: Error {}

    /// The environment a CI step gets: a runner folder, GitHub's PATH and ENV files, no keychain
    /// variables of the test's own.
    static func runner(_ sandbox: Sandbox, _ extra: [String: String]) -> [String: String] {
        #expect(FileManager.default.createFile(atPath: sandbox.folder + "/github_path", contents: Data()))
        #expect(FileManager.default.createFile(atPath: sandbox.folder + "/github_env", contents: Data()))
        try? FileManager.default.createDirectory(atPath: sandbox.folder + "/runner", withIntermediateDirectories: true)
        return [
            "KEYCHAINCTL_INSTALL_VERSION": VersionReport.number, "KEYCHAINCTL_DOWNLOAD_BASE": "file://" + sandbox.folder + "/dist",
            "RUNNER_TEMP": sandbox.folder + "/runner", "GITHUB_PATH": sandbox.folder + "/github_path",
            "GITHUB_ENV": sandbox.folder + "/github_env", "GITHUB_ACTIONS": "true",
        ].merging(extra) { $1 }
    }

    /// The GitLab template's before_script or after_script block, without its indentation.
    static func gitlabBlock(_ key: String) throws -> String {
        let template = try String(contentsOfFile: Sandbox.packageRoot + "/ci/gitlab/keychainctl.yml", encoding: .utf8)
        let lines = template.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "  \(key):"))
        var block: [String] = []
        for line in lines[(start + 2)...] {
            guard line.isEmpty || line.hasPrefix("      ") else { break }
            block.append(String(line.dropFirst(min(6, line.count))))
        }
        return block.joined(separator: "\n")
    }

    /// Runs `keychainctl arguments` in `sandbox` as the fixture app, its profile given by
    /// KEYCHAINCTL_PROFILE rather than `--profile` (as a CI step or exec's command gets it).
    static func runAsApp(_ sandbox: Sandbox, _ arguments: [String], environment: [String: String] = [:], stdoutPath: String? = nil)
        -> Sandbox.Run
    {
        sandbox.run(
            arguments, profile: nil, environment: environment.merging(["KEYCHAINCTL_PROFILE": Sandbox.profiles + "/app.plist"]) { $1 },
            stdoutPath: stdoutPath)
    }

    /// A lint of the fixture app, its extension and its widget that finds nothing to report.
    static let seed = [
        "lint", "--target", "app=\(Sandbox.profiles)/app.plist", "--provisioning", "app=\(Sandbox.profiles)/dev-app.mobileprovision",
        "--target", "share=\(Sandbox.profiles)/share-extension.plist", "--provisioning",
        "share=\(Sandbox.profiles)/dev-share.mobileprovision",
        "--target", "widget=\(Sandbox.profiles)/widget.plist", "--now", "2026-12-20T00:00:00Z",
    ]

    /// A lint of the fixture app signed by another team's profile, its code naming a group without
    /// the Team ID prefix: several rules broken at once.
    static let broken = [
        "lint", "--target", "app=\(Sandbox.profiles)/app.plist", "--provisioning",
        "app=\(Sandbox.profiles)/other-team.mobileprovision.plist",
        "--code-group", "com.example.shared", "--now", "2026-06-01T00:00:00Z",
    ]

    /// A copy of `schema-vN.db` in `sandbox`, and the environment that opens it with its key.
    static func schemaKeychain(version: Int, into sandbox: Sandbox) throws -> (path: String, environment: [String: String]) {
        let keychain = sandbox.folder + "/schema-v\(version).db"
        try FileManager.default.copyItem(atPath: Sandbox.packageRoot + "/Fixtures/Keychains/schema-v\(version).db", toPath: keychain)
        // A checkout gives the key file the umask's mode; keychainctl only reads a private one.
        let key = sandbox.folder + "/schema-v\(version).key"
        try FileManager.default.copyItem(atPath: Sandbox.packageRoot + "/Fixtures/Keychains/schema-v\(version).key", toPath: key)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
        return (keychain, ["KEYCHAINCTL_KEYCHAIN": keychain, "KEYCHAINCTL_KEY_FILE": key])
    }

    /// The DER of `pem`'s issuer Name, as a CA wrote it (SEQUENCE header, case and spacing kept).
    static func rawIssuer(ofPEM pem: String) throws -> [UInt8] {
        let text = try String(contentsOfFile: pem, encoding: .utf8)
        let body = text.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let der = try #require(Data(base64Encoded: body).map(Array.init))
        /// The (header length, content length) of the element at `offset`.
        func element(_ offset: Int) -> (header: Int, length: Int) {
            let first = Int(der[offset + 1])
            guard first & 0x80 != 0 else { return (2, first) }
            let count = first & 0x7F
            return (2 + count, (0..<count).reduce(0) { $0 << 8 | Int(der[offset + 2 + $1]) })
        }
        let certificate = element(0)
        var offset = certificate.header + element(certificate.header).header  // inside tbsCertificate
        if der[offset] == 0xA0 { offset += element(offset).header + element(offset).length }  // [0] version
        for _ in 0..<2 { offset += element(offset).header + element(offset).length }  // serial, signature
        let issuer = element(offset)
        return Array(der[offset..<(offset + issuer.header + issuer.length)])
    }

    /// `security import identity.p12 -P "$P12_PASSWORD"`, as a CI job runs it.
    static func importP12(_ sandbox: Sandbox, _ name: String, passphrase: String? = "fixture", _ extra: [String] = []) -> Sandbox.Run {
        sandbox.run(
            ["import", Fixtures.certificates + "/" + name] + (passphrase == nil ? [] : ["--p12-passphrase-fd", "0"]) + extra,
            stdin: passphrase.map { Data(($0 + "\n").utf8) })
    }
}
