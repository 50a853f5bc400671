import KeychainCore

/// The migration report: text lines for people, one JSON object for programs.
enum MigrationRenderer {
    static func render(_ report: MigrationReport, format: OutputFormat) -> String {
        let outcomes: [MigrationReport.Outcome] = [.moved, .copied, .skipped, .replaced]
        let refused = report.refused
        switch format {
        case .json:
            var members: [String: JSON.Value] = [:]
            for outcome in outcomes {
                members[outcome.rawValue] = .array(refused ? [] : report.entries(outcome).map(json))
            }
            members["conflicts"] = .array(report.conflicts.map(json))
            members["dryRun"] = .bool(report.dryRun)
            members["damaged"] = .array(
                report.damaged.map { .object([ItemJSON.persistentRefKey: .string($0.ref.base64), "reason": .string($0.reason.rawValue)]) })
            return JSON.render(.object(members)) + "\n"
        case .text:
            var out = ""
            for entry in refused ? report.conflicts : report.entries {
                let verb = refused ? "conflict" : (report.dryRun ? "would be \(entry.outcome.rawValue)" : entry.outcome.rawValue)
                out += "\(verb): \(entry.item.summary)"
                if let copy = entry.copy { out += " → copy ref=\(copy.base64)" }
                if let target = entry.conflictsWith { out += " (target has ref=\(target.base64))" }
                out += "\n"
            }
            for damaged in report.damaged { out += "damaged (left in place): ref=\(damaged.ref.base64): \(damaged.reason.rawValue)\n" }
            let counts = outcomes.map { "\(refused ? 0 : report.entries($0).count) \($0.rawValue)" }.joined(separator: ", ")
            out += "\(counts); \(report.conflicts.count) conflict\(report.conflicts.count == 1 ? "" : "s")"
            out += report.dryRun ? " (dry run: nothing changed)\n" : refused ? " (nothing changed)\n" : "\n"
            return out
        }
    }

    /// An entry: the item's attributes and persistent reference, plus the target it collided with.
    private static func json(_ entry: MigrationReport.Entry) -> JSON.Value {
        guard case .object(var members) = ItemRenderer.json(.init(item: entry.item, secret: nil), returns: [.attributes, .persistentRef])
        else { return .null }
        if let target = entry.conflictsWith { members["conflictsWith"] = .string(target.base64) }
        if let copy = entry.copy { members["copyPersistentRef"] = .string(copy.base64) }
        return .object(members)
    }
}
