import ArgumentParser
import Glibc
import KeychainCore

/// The `keychainctl` entry point: parse, run one command, map any failure to its exit status.
public enum KeychainCommandLine {
    /// Runs the command line and exits.
    public static func main() -> Never {
        let command: any ParsableCommand
        do {
            command = try RootCommand.parseAsRoot()
        } catch {
            RootCommand.exit(withError: error)
        }
        guard var subcommand = command as? any KeychainSubcommand else {
            StandardStreams.err(RootCommand.helpMessage() + "\n")
            exit(64)
        }
        do {
            try subcommand.execute()
            exit(0)
        } catch let error as ValidationError {
            RootCommand.exit(withError: error)
        } catch {
            exit(ErrorReporter.report(error, format: subcommand.globals.resolvedFormat))
        }
    }
}

/// A subcommand: its global options and what it does.
protocol KeychainSubcommand: ParsableCommand {
    var globals: GlobalOptions { get }
    mutating func execute() throws
}

extension KeychainSubcommand {
    /// Not used: `KeychainCommandLine.main` calls `execute` so that it can map errors itself.
    mutating func run() throws { try execute() }
}

/// `keychainctl`.
struct RootCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keychainctl",
        abstract: "Apple's data-protection keychain semantics on an encrypted SQLite file.",
        discussion: """
            Each invocation acts as one app or extension whose entitlements come from --profile: its access \
            groups decide what it may read and write, as SecItemAdd, SecItemCopyMatching, SecItemUpdate and \
            SecItemDelete decide on iOS and macOS. Exit statuses are the keychain status's low byte \
            (44 not found, 45 duplicate, 30 missing entitlement, 51 wrong key, 93 damaged item, 206 bad \
            parameter, 41 no such attribute), 64 usage, 78 unusable profile or configuration, 74 I/O.
            """,
        version: "keychainctl 1.0.0",
        subcommands: [
            InitCommand.self, AddCommand.self, FindCommand.self, UpdateCommand.self, DeleteCommand.self,
            GroupsCommand.self,
        ])
}
