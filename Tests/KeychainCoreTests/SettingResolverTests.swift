import Foundation
import KeychainFoundation
import Testing

@testable import KeychainCore

/// The settings the command and the library share are resolved one way (`ProcessSettings`): the
/// command's option when given, else the variable, else the default; and a test gives the library
/// an environment of its own (`Environment.overlay`) instead of calling `setenv`.
@Suite struct SettingResolverTests {
    @Test func anOptionWinsOverItsVariableWhichWinsOverTheDefault() throws {
        let environment = Environment.Overlay([
            "KEYCHAINCTL_KEYCHAIN": "/from/variable.db", "KEYCHAINCTL_PLATFORM": "plan9", "KEYCHAINCTL_DEVICE_STATE": "locked",
            "KEYCHAINCTL_AUTH": "approve", "KEYCHAINCTL_TEAM_ID": "ABCDE12345", "KEYCHAINCTL_NO_CACHE": "1",
            "XDG_DATA_HOME": "/data",
        ])
        try Environment.$overlay.withValue(environment) { () throws -> Void in
            #expect(ProcessSettings.keychainPath(option: "/from/option.db") == "/from/option.db")
            #expect(ProcessSettings.keychainPath(option: nil) == "/from/variable.db")
            // The option is taken without reading the variable, whose word is not one.
            #expect(try ProcessSettings.platform(option: .macos) == .macos)
            #expect(throws: ConfigurationError.self) { try ProcessSettings.platform(option: nil) }
            #expect(try ProcessSettings.deviceState(option: .unlocked) == .unlocked)
            #expect(try ProcessSettings.deviceState(option: nil) == .locked)
            #expect(try ProcessSettings.authenticationAnswer(option: .cancel) == .cancel)
            #expect(try ProcessSettings.authenticationAnswer(option: nil) == .approve)
            #expect(ProcessSettings.teamID(option: nil) == "ABCDE12345")
            #expect(ProcessSettings.noCache(flag: false))

            environment["KEYCHAINCTL_KEYCHAIN"] = nil
            environment["KEYCHAINCTL_NO_CACHE"] = "0"
            #expect(ProcessSettings.keychainPath(option: nil) == "/data/keychainctl/keychain.db")
            #expect(!ProcessSettings.noCache(flag: false))
            // The library's settings are the same resolvers with no option: the bad word is named.
            do {
                _ = try ProcessSettings.fromEnvironment()
                Issue.record("KEYCHAINCTL_PLATFORM=plan9 was taken")
            } catch {
                #expect("\(error)" == "KEYCHAINCTL_PLATFORM is 'plan9'; use ios or macos.")
            }
        }
    }

    /// An overlay is the whole environment: what it lacks is unset (the process's PATH too), an
    /// empty value is none, a secret taken is gone from it, and the process environment is back
    /// outside its scope.
    @Test func anOverlayIsTheWholeEnvironmentOfItsTask() throws {
        let processPath = try #require(ProcessInfo.processInfo.environment["PATH"])
        let environment = Environment.Overlay(["KEYCHAINCTL_KEY": "c2VjcmV0", "KEYCHAINCTL_PROFILE": ""])
        Environment.$overlay.withValue(environment) {
            #expect(Environment.value("PATH") == nil)
            #expect(Environment.value("KEYCHAINCTL_PROFILE") == nil)
            let taken = Environment.takeSecret("KEYCHAINCTL_KEY")
            #expect(taken.map { $0.withUnsafeBytes { Array($0) } } == Array("c2VjcmV0".utf8))
            #expect(environment["KEYCHAINCTL_KEY"] == nil)
            #expect(Environment.takeSecret("KEYCHAINCTL_KEY") == nil)
        }
        #expect(Environment.value("PATH") == processPath)
    }
}
