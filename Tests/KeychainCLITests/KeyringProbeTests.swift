import Foundation
import KeychainPlatform
import KeychainTestSupport
import Testing

/// The keyring gates (`TestMachine.hasKeyring`, and the no-login-session one, both code under test)
/// against the kernel as a probe of their own finds it (`.ci/check-skips --has`, raw syscalls from
/// Python): a gate that broke would turn the keyring's security tests into skips on every machine.
@Suite struct KeyringProbeTests {
    /// Whether `.ci/check-skips`' probe finds `word` on this machine, run through `inject-fault`
    /// with `settings` when given (a keyring known absent, a session keyring known to be ours).
    func machineHas(_ word: String, under settings: [String] = []) throws -> Bool {
        let sandbox = try Sandbox(initialize: false)
        let script = [Sandbox.packageRoot + "/.ci/check-skips", "--has", word]
        let run =
            settings.isEmpty
            ? sandbox.run(script, profile: nil, timeout: 60, executable: "/bin/bash")
            : sandbox.run(settings + ["/bin/bash"] + script, profile: nil, timeout: 60, executable: Sandbox.injectFault)
        try #require(run.status == 0 || run.status == 1, "\(run.stderr)")
        return run.status == 0
    }

    @Test func theGatesAgreeWithTheKernel() throws {
        #expect(TestMachine.hasKeyring == (try machineHas("keyring")))
        let noOwnSession = (try? KernelKeyring.hasOwnSessionKeyring()) == false
        #expect(noOwnSession == (try machineHas("no-login-session")))
    }

    /// The probe the gates are held to, on keyrings whose state is known: none where seccomp
    /// refuses keyctl (a container's default profile), and one of this user's own in a session
    /// `inject-fault` starts.
    @Test func theIndependentProbeSeesKnownKeyrings() throws {
        #expect(try machineHas("keyring", under: ["ENOSYS"]) == false)
        #expect(try machineHas("no-login-session", under: ["ENOSYS"]) == false)
        if try machineHas("keyring") {
            #expect(try machineHas("keyring", under: ["SESSION"]))
            #expect(try machineHas("no-login-session", under: ["SESSION"]) == false)
        }
    }
}
