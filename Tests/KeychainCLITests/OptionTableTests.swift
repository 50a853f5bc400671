import CommandLineKit
import Foundation
import KeychainCore
import Testing

@testable import KeychainCLI

/// Options are declared once, as typed constants: every one is read where it is used, parsed
/// values are checked as the command line is parsed, and the help, the man page's ENVIRONMENT,
/// FILES and EXIT STATUS sections and root help's exit list all come from the same tables.
@Suite struct OptionTableTests {
    static let specs = KeychainCommandLine.commands.map { $0.spec }

    /// The option constants `code` declares (`static let limit = Option…`, `let dryRun: Flag`) that
    /// it never reads (`context[Self.limit]`, `arguments[options.limit]`, `all(Self.limit)`,
    /// `given(GlobalOptions.teamID)`).
    static func unread(in code: String) throws -> [String] {
        let declaration = try NSRegularExpression(
            pattern: #"\blet (\w+)(?:: (?:Option<[^>]*>|Flag))? = (?:Option\b|Flag\()|\blet (\w+): (?:Option<[^>]*>|Flag)\n"#)
        let names = declaration.matches(in: code, range: NSRange(code.startIndex..., in: code)).compactMap { match in
            [1, 2].lazy.compactMap { Range(match.range(at: $0), in: code).map { String(code[$0]) } }.first
        }
        return names.filter { name in
            !code.contains(".\(name)]")
                && code.range(of: #"(?:all|given)\((?:Self|options|[A-Z]\w*)\.\#(name)\)"#, options: .regularExpression) == nil
        }
    }

    /// A declared option that no code reads would be accepted and silently ignored.
    /// The everyday verbs' help fits a screen: at most 12 options, an overview of at most 3
    /// lines, and the rest where the overview says it is: the man page, which `keychainctl
    /// manpage` prints, holds each verb's whole description.
    @Test func everydayHelpFitsAScreenAndTheManualHoldsTheRest() throws {
        let sandbox = try Sandbox(initialize: false)
        let page = sandbox.run(["manpage"], profile: nil).stdout
        let everyday = Self.specs.filter(\.briefGlobalOptions)
        #expect(Set(everyday.map(\.name)).isSuperset(of: ["set", "get", "ls", "rm"]))
        for spec in everyday {
            let help = sandbox.run([spec.name, "--help"], profile: nil).stdout
            let options = help.split(separator: "\n").filter { $0.hasPrefix("  -") && !$0.hasPrefix("  -h, --help") }
            #expect(options.count <= 12, "\(spec.name): \(options.count) options")
            let overview = help.components(separatedBy: "USAGE:")[0].split(separator: "\n").filter { !$0.isEmpty }
            #expect(overview.count <= 3 && overview.joined().count <= 3 * 100, "\(spec.name): \(overview)")
            #expect(help.contains("man keychainctl (or keychainctl manpage | man -l -)"), "\(spec.name)")
            // The description the help leaves out is in the page (roff escapes hyphens).
            let words = spec.discussion.split(separator: " ").prefix(8).joined(separator: " ")
            #expect(page.replacingOccurrences(of: "\\-", with: "-").contains(words), "\(spec.name): \(words)")
        }
    }

    @Test func everyDeclaredOptionIsRead() throws {
        let root = Sandbox.packageRoot + "/Sources/KeychainCLI"
        var code = ""
        for path in FileManager.default.enumerator(atPath: root)?.compactMap({ $0 as? String }) ?? [] where path.hasSuffix(".swift") {
            code += try String(contentsOfFile: root + "/" + path, encoding: .utf8) + "\n"
        }
        let unread = try Self.unread(in: code)
        #expect(unread.isEmpty, "declared, never read: \(unread)")
        // Every option of every spec is one of the declarations the scan sees, or of a table read whole.
        let tables = Set((ItemOptions.attributeOptions + UpdateCommand.changeOptions).map(\.spec.long))
        let declared = code.components(separatedBy: "\n").joined()
        for spec in Self.specs {
            for option in spec.options where !tables.contains(option.long) {
                #expect(declared.contains("\"\(option.long)\""), "\(spec.name) --\(option.long) is declared where the scan does not look")
            }
        }
    }

    /// The check itself can fail: an option declared and never read is caught, one read is not.
    @Test func anUnreadOptionIsNoticed() throws {
        let code = """
            static let read = Flag("read", "Read.")
            static let ignored = Flag("ignored", "Never read.")
            let limit: Option<String>
            func run() { if context[Self.read] { print(arguments[options.limit] ?? "") } }
            """
        #expect(try Self.unread(in: code) == ["ignored"])
        #expect(try Self.unread(in: code + "\nlet x = context.all(Self.ignored)").isEmpty)
    }

    @Test func noCommandDeclaresAnOptionTwice() {
        for spec in Self.specs {
            let names = spec.options.map(\.long)
            #expect(Set(names).count == names.count, "\(spec.name): \(names)")
            let shorts = spec.options.compactMap(\.short)
            #expect(Set(shorts).count == shorts.count, "\(spec.name): \(shorts)")
        }
    }

    /// A value that does not parse is a usage error naming what is expected, before anything runs.
    @Test func aBadValueIsAUsageErrorBeforeTheCommandRuns() {
        let unlock = KeychainCommandLine.parseOnly(["unlock", "--keyring", "bogus"])
        #expect(unlock == ExitStatusTable.usage)
        let explain = KeychainCommandLine.parseOnly(["explain", "--candidates", "0"])
        #expect(explain == ExitStatusTable.usage)
        #expect(KeychainCommandLine.parseOnly(["unlock", "--keyring", "user"]) == 0)
    }

    /// Through the binary: a value its option does not take (`--attr` wants CODE=VALUE) and a
    /// missing required operand are usage errors naming what is expected, and nothing is read: a
    /// keychain that does not exist is never reported.
    @Test func theParserRefusesBadValuesAndMissingOperands() throws {
        let sandbox = try Sandbox(initialize: false)
        let attr = sandbox.run(["add", "-s", "x", "--attr", "s3cret-typed-here"], profile: nil)
        #expect(attr.status == 64 && attr.stderr.contains("--attr does not take") && attr.stderr.contains("CODE=VALUE"), "\(attr.stderr)")
        #expect(!attr.stderr.contains("s3cret"), "a value in the wrong place may be a secret: never echoed")
        let get = sandbox.run(["get"], profile: nil)
        #expect(get.status == 64 && get.stderr.contains("get needs NAME") && !get.stderr.contains("init"), "\(get.stderr)")
        let given = sandbox.run(["get", "api"], profile: nil)
        #expect(given.status != 64, "with NAME the call goes on (to the missing keychain): \(given.stderr)")
    }

    /// Every option and operand of every command, and the subcommand itself, given a word that
    /// would drive a terminal (an escape sequence, a bell, a carriage return), as a script passing
    /// an untrusted word would: whatever the command answers, those bytes never reach stdout or
    /// stderr raw, and no call crashes.
    @Test func noWordOnTheCommandLineReachesTheTerminalRaw() throws {
        let sandbox = try Sandbox()
        var runs = 0
        for hostile in ["bin0\u{1B}]52;c;aGk=\u{07}\r\u{1B}[2J=x", "\u{1B}[2J\u{07}", "svce=\u{1B}[2J", "-\u{1B}"] {
            var lines = [[hostile]]
            for spec in Self.specs {
                let own = spec.sections.filter { $0.title != ProgramSpec.globalSectionTitle }.flatMap(\.options)
                let options = own + (spec.name == "find" ? GlobalOptions.specs : [])
                lines += options.filter { $0.kind != .flag }.map { [spec.name, "--" + $0.long, hostile] }
                lines += spec.operands.indices.map { count in [spec.name] + Array(repeating: hostile, count: count + 1) }
                lines += spec.actions.map { [spec.name] + $0.words.split(separator: " ").prefix(1).map(String.init) + [hostile] }
            }
            for line in lines {
                let run = sandbox.run(line, profile: nil, timeout: 30, inFolder: true)
                runs += 1
                let shown = run.stdoutData + Data(run.stderr.utf8)
                #expect(!shown.contains(0x1B) && !shown.contains(0x07), "\(line.dropLast()): \(run.stderr)")
                #expect(!run.stderr.contains("Fatal error"), "\(line.dropLast()) crashed: \(run.stderr)")
            }
        }
        #expect(runs > 450, "\(runs) command lines tried")
    }

    /// A word is escaped one way wherever it is echoed: the command-line framework's unknown
    /// option, the program's unknown subcommand and a refused value all show ESC and BEL as
    /// `\x1B` and `\x07`, so what a user searches a log for does not depend on who refused it.
    @Test func anEchoedWordIsEscapedOneWay() throws {
        let sandbox = try Sandbox()
        for (line, status) in [
            (["find", "--x\u{1B}[2J\u{07}"], Int32(64)), (["x\u{1B}[2J\u{07}"], 64), (["find", "--limit", "x\u{1B}[2J\u{07}"], 206),
        ] {
            let run = sandbox.run(line, profile: nil, timeout: 30, inFolder: true)
            #expect(run.status == status, "\(line.map(\.debugDescription)): \(run.stderr)")
            #expect(run.stderr.contains("x\\x1B[2J\\x07"), "\(line.map(\.debugDescription)): \(run.stderr)")
        }
    }

    /// The same for every setting variable, and the folders the defaults come from: a value that
    /// would drive a terminal is refused or used, never echoed raw, by an everyday command and a
    /// SecItem one.
    @Test func noSettingVariableReachesTheTerminalRaw() throws {
        let sandbox = try Sandbox()
        let names = SettingVariable.allCases.map(\.rawValue) + ["HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR"]
        var runs = 0
        for hostile in ["\u{1B}[2J\u{07}", "/tmp/\u{1B}]52;c;aGk=\u{07}", "1\r\u{1B}[1A"] {
            for name in names {
                for line in [["get", "api"], ["find", "-s", "api"], ["ls"]] {
                    let run = sandbox.run(line, profile: nil, environment: [name: hostile], timeout: 30, inFolder: true)
                    runs += 1
                    let shown = run.stdoutData + Data(run.stderr.utf8)
                    #expect(!shown.contains(0x1B) && !shown.contains(0x07), "\(name) with \(line): \(run.stderr)")
                    #expect(!run.stderr.contains("Fatal error"), "\(name) with \(line) crashed: \(run.stderr)")
                }
            }
        }
        #expect(runs == 3 * 3 * names.count)
    }

    /// Options that contradict each other are a usage error found with the options, before the
    /// profile or the keychain is read (as swift-argument-parser's `validate` runs before `run`).
    @Test func contradictoryOptionsAreAUsageErrorBeforeTheCommandRuns() {
        #expect(KeychainCommandLine.parseOnly(["update", "-a", "x", "--set-data-stdin", "--set-password", "y"]) == ExitStatusTable.usage)
        #expect(KeychainCommandLine.parseOnly(["update", "-a", "x", "--set-data-stdin"]) == 0)
        #expect(KeychainCommandLine.parseOnly(["get", "api", "--clip-seconds", "5"]) == ExitStatusTable.usage)
        #expect(KeychainCommandLine.parseOnly(["export", "--force"]) == ExitStatusTable.usage)
    }

    @Test func theManPageListsEveryVariableTheFilesAndEveryExitStatus() {
        let page = ManPage.render(Self.specs, program: KeychainProgram.spec, version: ("keychainctl " + VersionReport.number))
        let variables = Self.specs.flatMap(\.options).compactMap(\.environment) + GlobalOptions.specs.compactMap(\.environment)
        #expect(variables.contains("KEYCHAINCTL_ACCOUNT_KEY_FILE"))
        let environment = page.components(separatedBy: ".SH ENVIRONMENT\n").last?.components(separatedBy: ".SH FILES").first ?? ""
        for name in variables + [CommandContext.keyVariable, CommandContext.passphraseVariable] {
            #expect(environment.contains(".B \(ManPage.roff(name))\n"), "ENVIRONMENT lacks \(name)")
        }
        #expect(page.contains(".SH FILES\n") && page.contains("keychain.db"))
        for row in ExitStatusTable.rows { #expect(page.contains(".B \(row.exit)\n")) }
    }

    /// Root help groups the commands by what a user comes for: each command in exactly one group.
    /// The everyday commands' help shows the global options a script uses, and says where the rest are.
    @Test func rootHelpGroupsEveryCommandOnce() throws {
        let grouped = KeychainProgram.spec.groups.flatMap(\.commands)
        #expect(grouped.sorted() == Self.specs.map(\.name).sorted(), "grouped: \(grouped)")
        #expect(Set(grouped).count == grouped.count)
        let help = HelpText.root(Self.specs, program: KeychainProgram.spec)
        #expect(help.contains("EVERYDAY SECRETS:\n  init ") && help.contains("EXAMPLES:\n  keychainctl init "))
        let sandbox = try Sandbox(initialize: false)
        let get = sandbox.run(["get", "--help"], profile: nil).stdout
        #expect(get.contains("--keychain <path>") && !get.contains("--team-id") && get.contains("'keychainctl find --help'"))
        #expect(sandbox.run(["find", "--help"], profile: nil).stdout.contains("--team-id"), "the pointer leads to them")
        #expect(sandbox.run(["get", "x", "--team-id", "T"], profile: nil).status != 64, "hidden from help, still taken")
    }

    /// The global options by theme (location, credential, caller, simulation, output): each in
    /// exactly one, in the order of the specs, and help shows each theme under its own heading.
    @Test func everyGlobalOptionHasOneTheme() throws {
        let themed = GlobalOptions.themes.flatMap(\.names)
        #expect(themed == GlobalOptions.specs.map(\.long), "\(themed)")
        #expect(Set(themed).count == themed.count)
        let help = try Sandbox(initialize: false).run(["find", "--help"], profile: nil).stdout
        for theme in GlobalOptions.themes {
            let heading = "\n\(theme.title.uppercased()) OPTIONS (every command):\n  --\(theme.names[0]) "
            #expect(help.contains(heading), "find --help lacks \(heading)")
        }
    }

    @Test func rootHelpListsEveryExitStatusFromTheTable() {
        let help = HelpText.root(Self.specs, program: KeychainProgram.spec)
        for row in ExitStatusTable.rows {
            let line = "  \(row.exit)" + String(repeating: " ", count: max(1, 6 - String(row.exit).count))
            #expect(help.contains(line), "root help lacks exit \(row.exit)")
        }
    }

    /// The variable an option declares is read where the option is not given.
    @Test func anOptionsVariableStandsInForIt() throws {
        let sandbox = try Sandbox()
        let run = sandbox.run(["find", "-s", "nothing-here"], environment: ["KEYCHAINCTL_FORMAT": "json"])
        #expect(run.status == 44 && run.stderr.contains("\"status\""), "\(run.stderr)")
    }
}

/// The argument fuzzer's property, on command lines that stress it: what parses, parses the same
/// again in its canonical spelling.
@Suite struct CanonicalArgumentsTests {
    @Test(arguments: [
        ["add", "-s", "api", "-a", "-dash-first", "--label=", "--attr", "gena=1", "--attr", "gena=2"],
        // A value starting with a combining mark: "=" and the mark are one Character (found by fuzz-arguments).
        // (--kdf takes only its words now, checked as the line is parsed: the mark stands in a text value.)
        ["add", "-s", "\u{0612}---"], ["add", "-s", "x", "--label=\u{0301}x"], ["init", "--kdf", "sensitive"],
        ["error", "-25300"],
        ["error", "--", "-34018"],
        ["exec", "--env", "A=api", "--prefix", "X_", "--", "sh", "-c", "echo --help"],
        ["device", "passcode", "set"],
        ["cloud", "init", "/tmp/store", "--generate-account-key-file", "/tmp/k"],
        ["init", "--generate-key-file"],
        ["find", "-s", "x", "--limit", "all", "-w", "--format", "json"],
        ["lint", "--target", "a=/x.plist", "--code-group", "G", "--code-group", "G"],
    ])
    func aParseIsTheSameInItsCanonicalSpelling(_ arguments: [String]) throws {
        let type = try #require(KeychainCommandLine.commands.first { $0.name == arguments[0] })
        let parsed = try ParsedArguments(arguments.dropFirst(), spec: type.spec)
        let canonical = parsed.canonical(type.spec)
        let again = try ParsedArguments(canonical[...], spec: type.spec)
        #expect(again.sameArguments(as: parsed), "\(arguments) → \(canonical)")
        #expect(KeychainCommandLine.parsesTheSameCanonically(arguments))
        // And the comparison can tell arguments apart.
        let other = try ParsedArguments(["--help"][...], spec: type.spec)
        #expect(!other.sameArguments(as: parsed))
    }
}
