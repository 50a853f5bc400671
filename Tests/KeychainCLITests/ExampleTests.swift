import CommandLineKit
import Foundation
import KeychainTestSupport
import Testing

/// Every command's EXAMPLES (its `--help`, the man page, docs/REFERENCE.md, all from one table in
/// the command specs) run as written, in help order, in one shell on a fresh machine: no keychain,
/// no profile, HOME an empty folder holding the example profiles `app.plist`,
/// `share-extension.plist` and `widget.plist` and the fixture app as `App.ipa`. Each must succeed
/// after the ones before it.
@Suite struct ExampleTests {
    /// The example command lines of docs/REFERENCE.md (kept equal to the generated reference by
    /// `ErrorCommandTests`), in order, each with the command it belongs to.
    static func examples() throws -> [(command: String, line: String)] {
        let reference = try String(contentsOfFile: Sandbox.packageRoot + "/docs/REFERENCE.md", encoding: .utf8)
        var found: [(String, String)] = []
        var command = ""
        var inside = false
        for line in reference.components(separatedBy: "\n") {
            if line.hasPrefix("## ") { command = String(line.dropFirst(3)) }
            if line == "Examples:" { inside = true }
            if inside, line == "```" { inside = false }
            if inside, !line.isEmpty, !line.hasPrefix("#"), !line.hasPrefix("```"), line != "Examples:" { found.append((command, line)) }
        }
        return found
    }

    /// Every command has examples, and its help and the man page end with them.
    @Test func helpAndTheManPageEndWithExamples() throws {
        let examples = try Self.examples()
        let sandbox = try Sandbox(initialize: false)
        for command in Set(examples.map(\.command)).sorted() {
            let help = sandbox.run([command, "--help"], profile: nil).stdout
            let tail = try #require(help.components(separatedBy: "\nEXAMPLES:\n").dropFirst().first, "\(command): no EXAMPLES")
            for line in examples where line.command == command { #expect(tail.contains(line.line), "\(command): \(line.line)") }
        }
        let listed = try String(contentsOfFile: Sandbox.packageRoot + "/docs/REFERENCE.md", encoding: .utf8)
            .components(separatedBy: "\n## ").dropFirst().map { String($0.prefix { $0 != "\n" }) }
        let commands = listed.filter { $0 != "Global options" && $0 != "Environment" && $0 != "Files" && $0 != "Exit status" }
        #expect(
            Set(examples.map(\.command)) == Set(commands),
            "commands without examples: \(Set(commands).subtracting(examples.map(\.command)))")
        let page = sandbox.run(["manpage"], profile: nil).stdout
        let section = try #require(page.components(separatedBy: ".SH EXAMPLES\n").dropFirst().first)
        #expect(section.contains(".SS set\n") && section.contains("keychainctl get db admin"))
    }

    /// (The examples of `unlock` and `lock` need the kernel keyring.)
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring"))
    func everyExampleRunsAsWritten() throws {
        let examples = try Self.examples()
        let commands = Set(examples.map(\.command))
        for name in ["init", "set", "get", "ls", "rm", "add", "find", "update", "delete", "backup", "exec", "explain", "lint"] {
            #expect(commands.contains(name), "\(name) shows no example")
        }
        let sandbox = try Sandbox(initialize: false)
        for profile in ["app.plist", "share-extension.plist", "widget.plist"] {
            try FileManager.default.copyItem(atPath: Sandbox.profiles + "/" + profile, toPath: sandbox.folder + "/" + profile)
        }
        try FileManager.default.copyItem(atPath: Fixtures.bundles + "/Example.ipa", toPath: sandbox.folder + "/App.ipa")
        var script = "set -o pipefail\nunset KEYCHAINCTL_KEYCHAIN KEYCHAINCTL_KEY_FILE\ncd \"$HOME\"\n"
        script += "export KEYCHAINCTL_KEY_FILE=\"$HOME/.config/keychainctl/keychain.key\"\n"
        for (index, example) in examples.enumerated() {
            script += "\(example.line) > /dev/null || { echo \"example \(index) of \(example.command) failed ($?)\" >&2; exit 1; }\n"
        }
        let binaries = URL(fileURLWithPath: Sandbox.binary).deletingLastPathComponent().path
        let run = sandbox.run(
            ["SESSION", "/bin/bash", "-c", script], profile: nil,
            environment: ["HOME": sandbox.folder, "PATH": "\(binaries):/usr/bin:/bin", "TMPDIR": sandbox.folder, "LANG": "C.UTF-8"],
            timeout: 300, executable: Sandbox.injectFault)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(examples.count >= 35, "\(examples.count) examples")
    }
}
