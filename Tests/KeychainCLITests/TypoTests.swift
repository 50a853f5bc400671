import Foundation
import Testing

/// A mistyped verb or option gets one line naming what is wrong and what was likely meant, as git
/// and cargo answer, and one pointer to the help; the suggestion, followed, is a command that runs.
@Suite struct TypoTests {
    static let verbs: [(typed: String, meant: String)] = [
        ("gte", "get"), ("sett", "set"), ("lss", "ls"), ("lsit", "ls"), ("exce", "exec"), ("fnid", "find"), ("list", "ls"),
        ("remove", "rm"), ("show", "get"), ("insert", "set"), ("version", "--version"),
    ]

    @Test func aMistypedVerbNamesTheOneMeant() throws {
        let sandbox = try Sandbox(initialize: false)
        for (typed, meant) in Self.verbs {
            let run = sandbox.run([typed], profile: nil)
            #expect(run.status == 64, "\(typed): \(run.status)")
            #expect(run.stderr.contains("Did you mean '\(meant)'?"), "\(typed): \(run.stderr)")
            #expect(run.stderr.components(separatedBy: "keychainctl --help").count == 2, "one hint, not two: \(run.stderr)")
            // The word offered is a verb (or --version) the program takes.
            #expect(sandbox.run([meant] + (meant.hasPrefix("-") ? [] : ["--help"]), profile: nil).status == 0, "\(meant)")
        }
        let nothingNear = sandbox.run(["nonsense"], profile: nil)
        #expect(nothingNear.status == 64 && !nothingNear.stderr.contains("Did you mean"), "\(nothingNear.stderr)")
    }

    @Test func anOptionBeforeAnyVerbIsCalledAnOption() throws {
        let sandbox = try Sandbox(initialize: false)
        let run = sandbox.run(["--versoin"], profile: nil)
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("unknown option '--versoin'") && !run.stderr.contains("unknown subcommand"), "\(run.stderr)")
        #expect(run.stderr.contains("Did you mean '--version'?"), "\(run.stderr)")
    }

    @Test func aMistypedOptionNamesTheOneMeant() throws {
        let sandbox = try Sandbox()
        for (words, meant) in [(["exec", "--evn", "T=x", "--", "true"], "--env"), (["find", "--sevrice", "x"], "--service")] {
            let run = sandbox.run(words)
            #expect(run.status == 64 && run.stderr.contains("Did you mean '\(meant)'?"), "\(words): \(run.stderr)")
        }
    }
}
