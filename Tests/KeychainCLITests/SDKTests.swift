import Foundation
import KeychainTestSupport
import Testing

/// The Security module installed for a package that does not depend on this one: its interface,
/// its shared library and the flags file, as `make install-sdk` installs them (from the build
/// these tests run in, so no second build of the engine is made here).
@Suite struct SDKTests {
    /// Fixtures/SDKClient names no dependency, imports Security (and, in one file, Foundation
    /// alone), and its XCTest suite stores, replaces and deletes a token and signs with a key:
    /// built and tested with the installed flags under a fresh HOME, it passes; without them, it
    /// does not build. The interface imports nothing of the engine's.
    @Test func anInstalledModuleBuildsAPackageThatNamesNoDependency() throws {
        let sandbox = try Sandbox(initialize: false)
        let prefix = sandbox.folder + "/sdk"
        let client = sandbox.folder + "/client"
        let bin = URL(fileURLWithPath: Sandbox.binary).deletingLastPathComponent().path
        try FileManager.default.copyItem(atPath: Sandbox.packageRoot + "/Fixtures/SDKClient", toPath: client)
        let environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": sandbox.folder + "/home"]
        func shell(_ script: String) -> Sandbox.Run {
            // The client's first call makes the default keychain under HOME, as an app's does.
            let unset = "unset XDG_DATA_HOME XDG_CONFIG_HOME KEYCHAINCTL_KEYCHAIN KEYCHAINCTL_KEY_FILE KEYCHAINCTL_PROFILE; "
            return sandbox.run(["-c", unset + script], profile: nil, environment: environment, timeout: 400, executable: "/bin/sh")
        }
        let installed = shell("'\(Sandbox.packageRoot)/Scripts/install-sdk.sh' '\(prefix)' '\(bin)'")
        #expect(installed.status == 0, "\(installed.stderr)")
        #expect(installed.stdout.contains("swift build $(cat \(prefix)/share/keychainctl/swift-flags)"))

        // Each module's interface imports nothing of the engine's: the toolchain's modules and the SDK's own.
        let allowed: Set = ["Foundation", "Swift", "Security", "Dispatch", "Glibc", "Testing"]
        for module in ["Security", "LocalAuthentication", "SecurityTesting"] {
            let folder = prefix + "/lib/swift/linux/\(module).swiftmodule"
            let interfaces = try FileManager.default.contentsOfDirectory(atPath: folder)
            #expect(interfaces == ["x86_64-unknown-linux-gnu.swiftinterface"] || interfaces == ["aarch64-unknown-linux-gnu.swiftinterface"])
            let interface = try String(contentsOfFile: folder + "/" + interfaces[0], encoding: .utf8)
            // SecurityTesting spells modules by aliases ("Module___Security"): its enum has the module's name.
            let imports = interface.split(separator: "\n").filter { $0.hasPrefix("import ") }.map {
                String($0.dropFirst(7)).replacingOccurrences(of: "Module___", with: "")
            }
            #expect(
                imports.contains("Foundation") && imports.allSatisfy { allowed.contains($0) || $0.hasPrefix("_") }, "\(module): \(imports)")
        }

        let flags = "$(cat '\(prefix)/share/keychainctl/swift-flags')"
        let tested = shell("cd '\(client)' && swift build --build-tests \(flags) && swift test --skip-build \(flags) 2>&1")
        #expect(tested.status == 0, "\(tested.stdout)\n\(tested.stderr)")
        #expect(tested.stdout.contains("Executed 3 tests, with 0 failures"), "\(tested.stdout)")

        // The control: the same package without the flags finds no Security module.
        let bare = shell("cd '\(client)' && rm -rf .build && swift build 2>&1")
        #expect(bare.status != 0 && bare.stdout.contains("cannot find 'SecItem"), "\(bare.stdout)")
    }
}
