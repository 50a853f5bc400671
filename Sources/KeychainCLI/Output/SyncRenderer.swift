import Glibc
import KeychainCore
import TextEscaping

/// The sync report: a line per item for people, one JSON object for programs.
enum SyncRenderer {
    static func render(_ report: SyncReport, keychain: String, cloud: String, format: OutputFormat) -> String {
        switch format {
        case .json:
            var counts: [String: JSON.Value] = [:]
            for action in SyncReport.Action.allCases { counts[action.rawValue] = .number(Int64(report.entries(action).count)) }
            return JSON.render(
                .object([
                    "keychain": .string(keychain), "cloud": .string(cloud), "dryRun": .bool(report.dryRun),
                    "items": .array(report.entries.map(json)), "counts": .object(counts), "unchanged": .number(Int64(report.unchanged)),
                    "notSynchronizable": .number(Int64(report.notSynchronizable)),
                    "tombstonesPurged": .number(Int64(report.tombstonesPurged)),
                ])) + "\n"
        case .text:
            var out = ""
            for entry in report.entries {
                var line = (report.dryRun && entry.action != .failed ? "would be " : "") + entry.action.rawValue
                if let itemClass = entry.itemClass { line += " " + itemClass.rawValue }
                for (code, value) in entry.attributes.sorted(by: { $0.key < $1.key }) {
                    line += " \(code)=\(value.displayText.terminalSafe)"
                }
                if let group = entry.attributes[Schema.accessGroup]?.stringValue { line += " view=\(SyncView.of(group: group))" }
                if let uuid = entry.cloudUUID { line += " record=\(SyncReport.uuidText(uuid))" }
                if let ref = entry.ref { line += " ref=\(ref.base64)" }
                if let writer = entry.writer { line += " by=\(writer.terminalSafe)" }
                out += line + ": " + entry.reason.terminalSafe + "\n"
            }
            let moved = SyncReport.Action.allCases.filter { $0 != .notSyncing }.compactMap { action in
                let count = report.entries(action).count
                return count == 0 ? nil : "\(count) \(action.rawValue)"
            }
            out += (moved.isEmpty ? "nothing to sync" : moved.joined(separator: ", ")) + "; \(report.unchanged) unchanged"
            out += "; \(report.entries(.notSyncing).count) never sync; \(report.notSynchronizable) not synchronizable (stay on this device)"
            if report.tombstonesPurged > 0 { out += "; \(report.tombstonesPurged) tombstone(s) purged" }
            out += report.dryRun ? " (dry run: nothing changed)\n" : "\n"
            return out
        }
    }

    private static func json(_ entry: SyncReport.Entry) -> JSON.Value {
        var members: [String: JSON.Value] = ["action": .string(entry.action.rawValue), "reason": .string(entry.reason)]
        if let itemClass = entry.itemClass { members[ItemJSON.classKey] = .string(itemClass.rawValue) }
        if let uuid = entry.cloudUUID { members["record"] = .string(SyncReport.uuidText(uuid)) }
        if let ref = entry.ref { members[ItemJSON.persistentRefKey] = .string(ref.base64) }
        if let writer = entry.writer { members["by"] = .string(writer) }
        if !entry.attributes.isEmpty {
            members["attributes"] = .object(entry.attributes.mapValues(ItemRenderer.json))
            if let group = entry.attributes[Schema.accessGroup]?.stringValue { members["view"] = .string(SyncView.of(group: group)) }
        }
        switch entry.failure {
        case .decode?: members["exit"] = .number(Int64(KeychainStatus.decode.exitStatus))
        case .io?: members["exit"] = .number(Int64(ExitStatusTable.ioFailure))
        case nil: break
        }
        return .object(members)
    }
}
