import CommandLineKit
import KeychainCore

/// How commands that read or write many items report damaged rows (docs/SECURITY.md): never a whole
/// failure, never silence. Each damaged row is named; without `--skip-damaged` the command ends
/// with errSecDecode (exit 93) after doing what it safely could.
enum DamagedRows {
    /// The option find, update, delete and migrate-group take.
    static let option = Flag(
        "skip-damaged", "Leave damaged items out, each named on stderr, instead of ending with errSecDecode (exit 93).")

    /// Names `rows` on stderr as skipped, or (without `skip`) throws errSecDecode naming them.
    static func finish(_ rows: [DamagedRow], skip: Bool) throws {
        guard !rows.isEmpty else { return }
        guard skip else { throw DamagedRow.refusal(rows, changedNothing: false) }
        for row in rows { StandardStreams.warn("\(row.description); skipped (--skip-damaged).") }
    }

    /// Names damaged rows a delete by persistent reference removed.
    static func removed(_ rows: [DamagedRow]) {
        for row in rows {
            StandardStreams.warn("\(row.description); removed without a tombstone (its attributes could not be read).")
        }
    }
}
