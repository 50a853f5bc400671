import CommandLineKit
import Foundation
import KeychainFoundation
import Testing

@testable import KeychainCLI
@testable import KeychainCore

/// `keychainctl error`, and the one status table behind it and docs/REFERENCE.md.
@Suite struct ErrorCommandTests {
    @Test(arguments: ["-25300", "0xFFFF9D2C", "0xffff9d2c", "errSecItemNotFound", "ItemNotFound", "errsecitemnotfound"])
    func everySpellingOfAStatusFindsIt(_ spelling: String) throws {
        let sandbox = try Sandbox(initialize: false)
        let run = sandbox.run(["error", spelling], profile: nil)
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("errSecItemNotFound (-25300, 0xFFFF9D2C): The specified item could not be found in the keychain.\n"))
        #expect(run.stdout.contains("exit status: 44"))
    }

    @Test func jsonGivesOneObjectAndTheListAnArray() throws {
        let sandbox = try Sandbox(initialize: false)
        let one = try #require(try sandbox.run(["error", "-34018", "--format", "json"], profile: nil).json() as? [String: Any])
        #expect(one["name"] as? String == "errSecMissingEntitlement")
        #expect(one["status"] as? Int == -34018)
        #expect(one["exit"] as? Int == 30)
        #expect(one["message"] as? String == "A required entitlement isn't present.")
        let list = try #require(try sandbox.run(["error", "--list", "--format", "json"], profile: nil).json() as? [[String: Any]])
        #expect(list.count == ExitStatusTable.rows.count)
        // Every keychain status keychainctl returns is listed once, with its low byte.
        for status in KeychainStatus.allCases {
            #expect(list.filter { $0["status"] as? Int == Int(status.rawValue) }.map { $0["exit"] as? Int } == [Int(status.exitStatus)])
        }
    }

    /// A status keychainctl returns is named and worded as Apple's header has it, the words the
    /// `Security` library's SecCopyErrorMessageString gives: the table holds them once. (Two had
    /// been written again by hand, and differed: -34020 and -25306.)
    @Test func aStatusKeychainctlReturnsSaysWhatAppleSays() throws {
        let sandbox = try Sandbox(initialize: false)
        for status in KeychainStatus.allCases {
            let apple = try #require(AppleStatuses.row(status: status.rawValue), "\(status)")
            let json = try #require(
                try sandbox.run(["error", "--format", "json", "--", String(status.rawValue)], profile: nil).json() as? [String: Any])
            #expect(json["name"] as? String == apple.name && json["appleMessage"] as? String == apple.message, "\(json)")
        }
        let restricted = sandbox.run(["error", "RestrictedAPI"], profile: nil)
        #expect(
            restricted.stdout.hasPrefix(
                "errSecRestrictedAPI (-34020, 0xFFFF7B1C): Client is restricted and is not permitted to perform this operation.\n"))
    }

    /// README's exit-status paragraph agrees with the table it summarises: each "N errSecName"
    /// is that status's exit, and keychainctl's own numbers are the table's.
    @Test func theReadmesExitStatusesAreTheTables() throws {
        let readme = try String(contentsOfFile: Sandbox.packageRoot + "/README.md", encoding: .utf8)
        let paragraph = try #require(
            readme.components(separatedBy: "## Exit status\n").dropFirst().first?.components(separatedBy: "\n## ").first)
        let section = paragraph.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let pairs = try NSRegularExpression(pattern: #"(\d+) (errSec\w+)"#)
            .matches(in: section, range: NSRange(section.startIndex..., in: section))
            .map { (Int32(section[Range($0.range(at: 1), in: section)!])!, String(section[Range($0.range(at: 2), in: section)!])) }
        #expect(pairs.count >= 7, "\(pairs)")
        for (exit, name) in pairs {
            let status = try #require(KeychainStatus(name: name), "\(name)")
            #expect(status.exitStatus == exit, "README says \(name) exits \(exit); it exits \(status.exitStatus)")
        }
        for (exit, words) in [
            (ExitStatusTable.usage, "a usage error"), (ExitStatusTable.lintErrors, "`lint` found errors"),
            (ExitStatusTable.unusableConfiguration, "an unusable profile"), (ExitStatusTable.ioFailure, "a file that cannot be read"),
        ] {
            #expect(section.contains("\(exit) \(words)"), "README's exit \(exit): \(words)")
        }
    }

    /// `error` names the commands a status comes from: each is a real command, and the ones tried
    /// here end with it through the binary.
    @Test func theCommandsAStatusComesFromAreRealAndProduceIt() throws {
        let names = Set(KeychainCommandLine.commands.map { $0.name })
        for status in KeychainStatus.allCases {
            #expect(!status.row.commands.isEmpty, "\(status.name)")
            for command in status.row.commands { #expect(names.contains(command), "\(status.name): \(command)") }
        }
        let sandbox = try Sandbox()
        let text = sandbox.run(["error", "-34018"], profile: nil).stdout
        #expect(text.contains("  from: add, find,"))
        let json = try #require(try sandbox.run(["error", "-25300", "--format", "json"], profile: nil).json() as? [String: Any])
        #expect((json["commands"] as? [String])?.contains("get") == true)
        let tried: [(KeychainStatus, [String])] = [
            (.itemNotFound, ["get", "nothing-here"]), (.missingEntitlement, ["find", "-g", "ZZZZZ99999.com.other"]),
            (.duplicateKeychain, ["backup", sandbox.keychain]), (.noSuchClass, ["find", "--class", "nope"]),
        ]
        for (status, arguments) in tried {
            #expect(status.row.commands.contains(arguments[0]), "\(status.name) lists \(arguments[0])")
            let run = sandbox.run(arguments)
            #expect(run.status == status.exitStatus, "\(arguments): \(run.status) \(run.stderr)")
        }
        // Apple's statuses keychainctl never returns come from none of its commands.
        let apple = try #require(try sandbox.run(["error", "-25243", "--format", "json"], profile: nil).json() as? [String: Any])
        #expect((apple["commands"] as? [Any])?.isEmpty == true)
    }

    @Test func anExitStatusLeadsBackToItsStatus() throws {
        let sandbox = try Sandbox(initialize: false)
        let run = sandbox.run(["error", "--exit", "36"], profile: nil)
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("errSecInteractionNotAllowed (-25308"))
        #expect(sandbox.run(["error", "--exit", "78"], profile: nil).stdout.hasPrefix("exit 78: the profile or configuration is unusable"))
    }

    /// A number from 0 to 255 is the exit status a user just saw: `error 44` after `echo $?`. Where
    /// its negative is an OSStatus too, that is shown as well, marked as not an exit status (the
    /// command it names works as printed); a number no exit status has is read as an OSStatus.
    @Test func aSmallNumberIsAnExitStatusFirst() throws {
        let sandbox = try Sandbox(initialize: false)
        let thirtySix = sandbox.run(["error", "36"], profile: nil)
        #expect(thirtySix.status == 0 && thirtySix.stdout.hasPrefix("keychainctl's exit status 36:\nerrSecInteractionNotAllowed (-25308"))
        #expect(thirtySix.stdout.contains("OSStatus -36 (not an exit status) is errSecIO: I/O error. ('keychainctl error -36')."))
        let followed = sandbox.run(["error", "-36"], profile: nil)
        #expect(followed.status == 0 && followed.stdout.hasPrefix("errSecIO (-36"), "\(followed.stdout)")
        let fortyFour = sandbox.run(["error", "44"], profile: nil)
        #expect(
            fortyFour.status == 0 && fortyFour.stdout.contains("errSecItemNotFound (-25300") && !fortyFour.stdout.contains("OSStatus -44"))
        let json = try #require(try sandbox.run(["error", "36", "--format", "json"], profile: nil).json() as? [String: Any])
        #expect(json["exit"] as? Int == 36 && json["readAs"] as? String == "exit")
        #expect((json["osStatus"] as? [String: Any])?["name"] as? String == "errSecIO")
        // No exit status 50: OSStatus -50, as before; above 255 always an OSStatus.
        #expect(sandbox.run(["error", "50"], profile: nil).stdout.hasPrefix("errSecParam (-50"))
        #expect(sandbox.run(["error", "25300"], profile: nil).stdout.hasPrefix("errSecItemNotFound (-25300"))
    }

    @Test(arguments: [
        ["error"], ["error", "-1"], ["error", "errSecNope"], ["error", "--exit", "99"], ["error", "--exit", "300"], ["error", "300"],
        [
            "error", "-25300", "--list",
        ], ["error", "-25300", "-25299"],
    ])
    func whatIsNotOneKnownStatusIsAUsageError(_ arguments: [String]) throws {
        let sandbox = try Sandbox(initialize: false)
        #expect(sandbox.run(arguments, profile: nil).status == 64)
    }

    /// Every status of Apple's headers is explained, as a number (a positive one read as its
    /// negative), in hex, by name, after `--`; those keychainctl never returns say so.
    @Test func everyAppleStatusIsExplained() throws {
        let sandbox = try Sandbox(initialize: false)
        for (query, name) in [
            (["--", "-26276"], "errSecInternal"), (["-2070"], "errSecInternalComponent"), (["-25243"], "errSecNoAccessForItem"),
            (["--", "-67068"], "errSecCSStaticCodeNotFound"), (["0xFFFF9D65"], "errSecNoAccessForItem"),
            (["InDarkWake"], "errSecInDarkWake"),
        ] {
            let run = sandbox.run(["error"] + query, profile: nil)
            #expect(run.status == 0 && run.stdout.hasPrefix(name + " (") && run.stdout.contains("never returns"), "\(query): \(run.stdout)")
        }
        for query in [["--", "-34018"], ["34018"], ["0xFFFF7B1E"], ["MissingEntitlement"]] {
            let run = sandbox.run(["error"] + query, profile: nil)
            #expect(
                run.stdout.hasPrefix("errSecMissingEntitlement (-34018, 0xFFFF7B1E)") && run.stdout.contains("exit status: 30"), "\(query)")
        }
        let json = try #require(try sandbox.run(["error", "-26276", "--format", "json"], profile: nil).json() as? [String: Any])
        #expect(json["name"] as? String == "errSecInternal" && json["exit"] is NSNull)
    }

    @Test func unknownStatusesAreNotEchoedRaw() throws {
        let sandbox = try Sandbox(initialize: false)
        let run = sandbox.run(["error", "errSec\u{1b}[31mred"], profile: nil)
        #expect(run.status == 64)
        #expect(!run.stderr.contains("\u{1b}"))
    }

    /// The command reference in docs/ is what `manpage --markdown` prints: the option tables, the
    /// environment and the exit-status table, row for row (KEYCHAINCTL_RECORD=1 rewrites it).
    @Test func theReferenceIsGeneratedFromTheTables() throws {
        let path = Sandbox.packageRoot + "/docs/REFERENCE.md"
        let rendered = ReferencePage.markdown(
            KeychainCommandLine.commands.map { $0.spec }, program: KeychainProgram.spec, version: ("keychainctl " + VersionReport.number))
        if GoldenFile.recording {
            try rendered.write(toFile: path, atomically: true, encoding: .utf8)
            GoldenFile.recorded("docs/REFERENCE.md")
        }
        let reference = try String(contentsOfFile: path, encoding: .utf8)
        #expect(reference == rendered, "docs/REFERENCE.md differs from 'keychainctl manpage --markdown'; regenerate it")
        for row in ExitStatusTable.rows { #expect(reference.contains("\n| \(row.exit) | "), "the reference lacks exit \(row.exit)") }
        let run = try Sandbox(initialize: false).run(["manpage", "--markdown"], profile: nil)
        #expect(run.status == 0 && run.stdout == rendered)
    }
}
