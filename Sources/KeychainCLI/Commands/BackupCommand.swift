import CommandLineKit
import Glibc
import KeychainCore
import TextEscaping

/// `keychainctl backup DEST`: a copy of the keychain, consistent while others write it.
struct BackupCommand: Subcommand {
    static let name = "backup"

    static let spec = CommandSpec(
        name: name,
        abstract: "Copy the keychain to DEST: one consistent snapshot, still encrypted, that opens with the same key.",
        discussion: """
            The copy is taken with SQLite's online backup, so other processes may go on writing; it is a new \
            file of mode 0600 (an existing DEST is refused, exit 48), made in memory and written to DEST only \
            once it opens with this call's key and SQLite finds it sound; a backup that fails or is killed \
            leaves nothing. Secrets stay sealed: the copy \
            needs the same key file or passphrase. To restore, copy it back over the keychain file (with no \
            other process using it), or point KEYCHAINCTL_KEYCHAIN at it.
            """,
        sections: [GlobalOptions.section],
        operands: [("DEST", "The new file to write.")], requiredOperands: 1, briefGlobalOptions: true,
        examples: [
            Example("keychainctl backup ~/keychain-backup.db", "Copy the keychain, still encrypted, while others may write to it."),
            Example(
                "cp ~/keychain-backup.db ~/.local/share/keychainctl/keychain.db",
                "Restore it over the default keychain, while no other keychainctl runs (it opens with the key it had)."),
        ])

    let context: CommandContext

    /// `path` with today's date before its extension (`keychain-backup-2026-12-07.db`), and the
    /// time too when that name is taken.
    static func dated(_ path: String, now: time_t = time(nil)) -> String {
        var seconds = now
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let day = "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        let dot = path[slash...].lastIndex(of: ".").flatMap { $0 == slash ? nil : $0 } ?? path.endIndex
        let named = path[..<dot] + "-" + day + path[dot...]
        guard access(named, F_OK) == 0 else { return named }
        return path[..<dot] + "-" + day + "T" + two(parts.tm_hour) + two(parts.tm_min) + two(parts.tm_sec) + path[dot...]
    }

    func run() throws {
        let destination = context.arguments.operand ?? ""
        let keychain = try context.openKeychain()
        let items: Int
        do {
            items = try keychain.backup(to: destination)
        } catch let error as KeychainError where error.status == .duplicateKeychain {
            // A second backup under the same name: one beside it, named by today's date.
            let dated = Self.dated(destination)
            throw KeychainError(
                .duplicateKeychain,
                hint: "\(destination.terminalSafe) exists; backup never overwrites a file. Nothing was written. "
                    + "To keep both, name the new one by its date: 'keychainctl backup \(dated.shellQuoted.terminalSafe)'.")
        }
        switch context.resolvedFormat {
        case .json:
            StandardStreams.out(JSON.render(.object(["path": .string(destination), "items": .number(Int64(items))])) + "\n")
        case .text:
            StandardStreams.out(
                "backed up \(items) item\(items == 1 ? "" : "s") to \(destination.terminalSafe) (sealed; it opens with the same key)\n")
        }
    }
}
