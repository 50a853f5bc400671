import CommandLineKit
import Foundation
import Testing

@testable import KeychainCLI

/// Completions and the man page come from the command specs: every command and option is in each,
/// and bash's script completes as a user would see it.
@Suite struct CompletionTests {
    static let specs = KeychainCommandLine.commands.map { $0.spec }

    /// What bash completes for the words typed so far (the last one being completed).
    func bashCompletions(_ words: [String]) throws -> [String] {
        let sandbox = try Sandbox(initialize: false)
        let script = """
            source <("$0" completion bash)
            COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 ))
            _keychainctl
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let run = sandbox.run(["-c", script, Sandbox.binary] + words, profile: nil, executable: "/bin/bash")
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesCommandsOptionsAndChoices() throws {
        #expect(try bashCompletions(["keychainctl", "un"]) == ["unlock"])
        #expect(try Set(bashCompletions(["keychainctl", "exec", "--env"])) == ["--env", "--env-from", "--env-file"])
        #expect(try bashCompletions(["keychainctl", "unlock", "--keyring", ""]) == ["auto", "session", "user"])
        #expect(try bashCompletions(["keychainctl", "device", "pass"]).contains("passcode"))
        #expect(try bashCompletions(["keychainctl", "find", "--format", "j"]) == ["json"])
    }

    /// Enumerated values of text options, nested actions word by word, and known operands.
    @Test func bashCompletesValuesAndNestedActions() throws {
        #expect(try Set(bashCompletions(["keychainctl", "find", "--class", ""])).isSuperset(of: ["genp", "inet", "cert", "keys", "idnt"]))
        #expect(
            try bashCompletions(["keychainctl", "add", "--accessible", "after-first-unlock-t"]) == ["after-first-unlock-this-device-only"])
        #expect(try bashCompletions(["keychainctl", "add", "--protocol", "htt"]) == ["http", "https"])
        #expect(try bashCompletions(["keychainctl", "add", "--access-control", "bio"]) == ["biometry-any", "biometry-current-set"])
        #expect(try bashCompletions(["keychainctl", "find", "--return", "persis"]) == ["persistent-ref"])
        let second = try bashCompletions(["keychainctl", "device", "passcode", ""])
        #expect(second.contains("set") && second.contains("remove") && !second.contains("lock"), "\(second)")
        #expect(try bashCompletions(["keychainctl", "device", "app-clip", "p"]) == ["promote"])
        #expect(try !bashCompletions(["keychainctl", "device", "lock", ""]).contains("passcode"), "no action after a complete one")
        #expect(try bashCompletions(["keychainctl", "completion", ""]).prefix(3) == ["bash", "zsh", "fish"])
        #expect(try bashCompletions(["keychainctl", "profile", "p"]) == ["path"])
    }

    @Test func everyCommandAndOptionIsInEveryScriptAndThePage() throws {
        let page = ManPage.render(Self.specs, program: KeychainProgram.spec, version: ("keychainctl " + VersionReport.number))
        for shell in ShellCompletion.shells {
            let script = try #require(KeychainCommandLine.completionScript(for: shell))
            for spec in Self.specs {
                #expect(script.contains(spec.name), "\(shell): \(spec.name)")
                for option in spec.options {
                    let shown = shell == "fish" ? "-l \(option.long)" : "--\(option.long)"
                    #expect(script.contains(shown), "\(shell): \(spec.name) \(option.long)")
                }
            }
        }
        for spec in Self.specs {
            #expect(page.contains(ManPage.roff("keychainctl \(spec.name)")), "man: \(spec.name)")
            for option in spec.options { #expect(page.contains("\\-\\-" + ManPage.roff(option.long)), "man: \(option.long)") }
        }
        for row in ExitStatusTable.rows { #expect(page.contains(".B \(row.exit)\n")) }
    }

    /// groff reads the page without a warning (where groff is installed).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/groff"), "machine: groff")) func groffReadsThePageCleanly()
        throws
    {
        let sandbox = try Sandbox(initialize: false)
        let run = sandbox.run(
            ["-c", "\"$0\" manpage | groff -man -Tutf8 -ww -z", Sandbox.binary], profile: nil, executable: "/bin/sh")
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
    }

    /// zsh and fish read their scripts (where they are installed), and fish completes as bash does.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh"), "machine: zsh")) func zshReadsItsScript() throws {
        try otherShellReadsItsScript("zsh")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/fish"), "machine: fish")) func fishReadsAndCompletes() throws
    {
        try otherShellReadsItsScript("fish")
    }

    func otherShellReadsItsScript(_ shell: String) throws {
        let sandbox = try Sandbox(initialize: false)
        let file = sandbox.folder + "/script"
        try Data(try #require(KeychainCommandLine.completionScript(for: shell)).utf8).write(to: URL(fileURLWithPath: file))
        let checked = sandbox.run(["-n", file], profile: nil, executable: "/usr/bin/\(shell)")
        #expect(checked.status == 0, "\(shell): \(checked.stderr)")
        if shell == "fish" {
            let completed = sandbox.run(
                ["-c", "source $argv[1]; complete -C 'keychainctl unlock --keyring '", file], profile: nil, executable: "/usr/bin/fish")
            #expect(completed.stdout.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) } == ["auto", "session", "user"])
            func fish(_ line: String) -> [String] {
                let run = sandbox.run(
                    ["-c", "source $argv[1]; complete -C $argv[2]", file, line], profile: nil, executable: "/usr/bin/fish")
                return run.stdout.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
            }
            #expect(fish("keychainctl device passcode ") == ["remove", "set"], "nested actions")
            #expect(Set(fish("keychainctl find --class ")).isSuperset(of: ["genp", "inet", "idnt"]), "a text option's values")
            #expect(fish("keychainctl device ").contains("biometry"))
        }
        if shell == "zsh" {
            // zsh loads the function and completes action words by position (through compadd).
            let probe = """
                compadd() { shift; print -l -- "$@"; }
                _arguments() { :; }
                source $1
                words=(keychainctl device passcode ''); CURRENT=4; _keychainctl
                words=(keychainctl device ''); CURRENT=3; _keychainctl
                """
            let run = sandbox.run(["-c", probe, "zsh", file], profile: nil, executable: "/usr/bin/zsh")
            let lines = run.stdout.split(separator: "\n").map(String.init)
            #expect(lines.prefix(2) == ["set", "remove"] && lines.contains("biometry"), "\(run.stdout) \(run.stderr)")
        }
    }

    /// As pass completes its entries: after get, set, rm and ls, each shell offers the stored
    /// names when a key is at hand (here the default key file of a fresh HOME), and nothing, with
    /// no error and no prompt, when none is (a passphrase keychain with nothing cached).
    @Test func storedNamesAreCompletedWhenAKeyIsAtHand() throws {
        let user = try Self.userWithThreeNames()
        func bashNames(_ command: String, _ typed: String) -> [String] {
            let run = user.run([
                "/bin/bash", "-c",
                "source <(keychainctl completion bash); COMP_WORDS=(keychainctl \"$1\" \"$2\"); COMP_CWORD=2; _keychainctl; printf '%s\\n' \"${COMPREPLY[@]}\"",
                "bash", command, typed,
            ])
            #expect(run.stderr.isEmpty, "\(run.stderr)")
            return run.stdout.split(separator: "\n").map(String.init)
        }
        // bash inserts COMPREPLY as it is: each name comes quoted for the shell to read back.
        for command in ["get", "set", "rm", "ls"] { #expect(bashNames(command, "") == ["api-token", "db\\ pass", "other"], "\(command)") }
        #expect(bashNames("get", "d") == ["db\\ pass"])
        #expect(bashNames("exec", "").contains("--env"), "no names where no name is taken")
        // exec --env VAR=NAME: the name after '=', as bash splits the word and as it may not.
        func bashWords(_ words: [String]) -> [String] {
            let run = user.run(
                [
                    "/bin/bash", "-c",
                    "source <(keychainctl completion bash); COMP_WORDS=(\"$@\"); COMP_CWORD=$(( $# - 1 )); _keychainctl; printf '%s\\n' \"${COMPREPLY[@]}\"",
                    "bash",
                ] + words)
            return run.stdout.split(separator: "\n").map(String.init)
        }
        #expect(bashWords(["keychainctl", "exec", "--env", "TOKEN", "=", "ap"]) == ["api-token"])
        #expect(bashWords(["keychainctl", "exec", "--file", "KEY", "="]) == ["api-token", "db\\ pass", "other"])
        #expect(bashWords(["keychainctl", "exec", "--env", "TOKEN=ap"]) == ["TOKEN=api-token"])
        #expect(bashWords(["keychainctl", "exec", "--env-from", "ap"]).isEmpty, "--env-from takes a query, not VAR=")
        // No key at hand: nothing, no error, no prompt (a passphrase keychain, nothing cached).
        #expect(user.shell("mv .config/keychainctl/keychain.key k && rm .local/share/keychainctl/keychain.db").status == 0)
        #expect(user.shell("keychainctl init", extra: ["KEYCHAINCTL_PASSPHRASE=correct horse battery"]).status == 0)
        let locked = user.shell("keychainctl completion names; echo \"exit $?\"", extra: ["KEYCHAINCTL_PASSPHRASE=correct horse battery"])
        #expect(locked.stdout == "exit 0\n" && locked.stderr.isEmpty, "\(locked.stdout) \(locked.stderr)")
        #expect(bashNames("get", "").isEmpty)
    }

    /// A user with a default keychain holding api-token, 'db pass' and other.
    static func userWithThreeNames() throws -> FirstRunTests.User {
        let user = try FirstRunTests.User()
        #expect(
            user.shell(
                "keychainctl init && echo t | keychainctl set api-token && echo t | keychainctl set 'db pass' && echo t | keychainctl set other"
            ).status == 0)
        return user
    }

    /// fish offers the stored names after get, and the name after `--env VAR=`.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/fish"), "machine: fish"))
    func fishCompletesStoredNames() throws {
        let user = try Self.userWithThreeNames()
        let fish = user.run(["/usr/bin/fish", "-c", "keychainctl completion fish | source; complete -C 'keychainctl get '"])
        #expect(
            fish.stdout.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }.starts(with: ["api-token", "db pass"]),
            "\(fish.stdout) \(fish.stderr)")
        let fishExec = user.run([
            "/usr/bin/fish", "-c", "keychainctl completion fish | source; complete -C 'keychainctl exec --env TOKEN=ap'",
        ])
        #expect(
            fishExec.stdout.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) } == ["TOKEN=api-token"],
            "\(fishExec.stdout) \(fishExec.stderr)")
    }

    /// zsh offers the stored names after rm, and the name after `--env VAR=`.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh"), "machine: zsh"))
    func zshCompletesStoredNames() throws {
        let user = try Self.userWithThreeNames()
        let probe =
            "compadd() { shift; print -l -- \"$@\"; }; _arguments() { :; }; source <(keychainctl completion zsh); words=(keychainctl rm ''); CURRENT=3; _keychainctl"
        let zsh = user.run(["/usr/bin/zsh", "-c", probe])
        #expect(zsh.stdout == "api-token\ndb pass\nother\n", "\(zsh.stdout) \(zsh.stderr)")
        let zshExec = user.run([
            "/usr/bin/zsh", "-c",
            "compadd() { shift; print -l -- \"$@\"; }; compset() { :; }; _arguments() { :; }; source <(keychainctl completion zsh); words=(keychainctl exec --env TOKEN=ap); CURRENT=4; PREFIX=TOKEN=ap; _keychainctl",
        ])
        #expect(zshExec.stdout == "api-token\ndb pass\nother\n", "\(zshExec.stdout) \(zshExec.stderr)")
    }

    /// Names with a space, quotes, a `$` and glob characters: bash offers each quoted so that the
    /// shell reads back the stored name (checked by letting bash read the completed word), zsh and
    /// fish get them raw to quote as they insert; after a name, each shell offers its accounts.
    @Test func hostileNamesComeBackLiteralAndAccountsFollowTheName() throws {
        let (user, names) = try Self.userWithHostileNames()
        // bash: complete, then read the completed word back through bash itself.
        let readBack =
            "source <(keychainctl completion bash); COMP_WORDS=(\"$@\"); COMP_CWORD=$(( $# - 1 )); _keychainctl; "
            + "for reply in \"${COMPREPLY[@]}\"; do eval \"set -- $reply\"; printf '%s\\n' \"$1\"; done"
        func bash(_ words: [String]) -> [String] {
            let run = user.run(["/bin/bash", "-c", readBack, "bash"] + words)
            #expect(run.stderr.isEmpty, "\(run.stderr)")
            return run.stdout.split(separator: "\n").map(String.init)
        }
        #expect(bash(["keychainctl", "get", ""]) == names.sorted())
        #expect(bash(["keychainctl", "get", "my"]) == ["my token"])
        #expect(bash(["keychainctl", "get", "my\\ token", ""]) == ["ci bot", "deploy"])
        #expect(bash(["keychainctl", "rm", "'it\\'s", ""]).isEmpty, "a name cut short has no accounts")
        #expect(bash(["keychainctl", "exec", "--env", "T=gl"]) == ["T=glob*?[x]"])
        #expect(user.shell("keychainctl completion accounts 'my token'").stdout == "ci bot\ndeploy\n")
        #expect(user.shell("keychainctl completion accounts; echo \"exit $?\"").stdout == "exit 64\n")
    }

    /// A user whose default keychain holds names with a space, quotes, `$`, glob characters and a
    /// backslash, each with the account "ci bot" ("my token" with "deploy" too); and the names.
    static func userWithHostileNames() throws -> (FirstRunTests.User, [String]) {
        let user = try FirstRunTests.User()
        let names = ["my token", "it's \"q\" $HOME", "glob*?[x]", "back\\slash"]
        #expect(user.shell("keychainctl init").status == 0)
        for name in names {
            #expect(user.run(["keychainctl", "set", name], stdin: "t").status == 0, "\(name)")
            #expect(user.run(["keychainctl", "set", name, "ci bot"], stdin: "t").status == 0, "\(name)")
        }
        #expect(user.run(["keychainctl", "set", "my token", "deploy"], stdin: "t").status == 0)
        return (user, names)
    }

    /// zsh gets the hostile names raw, and a name's accounts after it.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh"), "machine: zsh"))
    func zshCompletesHostileNamesAndTheirAccounts() throws {
        let (user, names) = try Self.userWithHostileNames()
        let probe =
            "compadd() { shift; print -rl -- \"$@\"; }; _arguments() { :; }; source <(keychainctl completion zsh); "
            + "words=(keychainctl get 'my\\ token' ''); CURRENT=4; _keychainctl; words=(keychainctl get ''); CURRENT=3; _keychainctl"
        let zsh = user.run(["/usr/bin/zsh", "-c", probe])
        #expect(
            zsh.stdout.split(separator: "\n").map(String.init) == ["ci bot", "deploy"] + names.sorted(), "\(zsh.stdout) \(zsh.stderr)")
    }

    /// fish gets the hostile names raw, and a name's accounts after it, however it was quoted.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/fish"), "machine: fish"))
    func fishCompletesHostileNamesAndTheirAccounts() throws {
        let (user, _) = try Self.userWithHostileNames()
        func fish(_ line: String) -> [String] {
            let run = user.run(["/usr/bin/fish", "-c", "keychainctl completion fish | source; complete -C $argv[1]", line])
            return run.stdout.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
        }
        #expect(fish("keychainctl get my") == ["my token"])
        #expect(fish("keychainctl get my\\ token ") == ["ci bot", "deploy"])
        #expect(fish("keychainctl get 'my token' ") == ["ci bot", "deploy"])
    }

    @Test func unknownShellIsAUsageError() throws {
        let sandbox = try Sandbox(initialize: false)
        #expect(sandbox.run(["completion", "tcsh"], profile: nil).status == 64)
        #expect(sandbox.run(["completion"], profile: nil).status == 64)
    }
}
