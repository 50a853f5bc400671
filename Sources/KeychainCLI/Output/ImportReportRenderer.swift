import Glibc
import KeychainCore

/// `import`'s report: counts in text, or one JSON object listing each item by attributes and
/// reference (never a secret).
enum ImportReportRenderer {
    static func render(_ report: Keychain.ImportReport, format: OutputFormat) -> String {
        let outcomes = Keychain.ImportReport.Outcome.allCases
        switch format {
        case .text:
            let counts = outcomes.map { "\(report.count($0)) \($0.rawValue)" }.joined(separator: ", ")
            return counts + "; \(report.conflicts.count) conflicts" + (report.dryRun ? " (dry run: nothing was written)" : "") + "\n"
        case .json:
            var members: [String: JSON.Value] = ["dryRun": .bool(report.dryRun), "conflicts": .array(report.conflicts.map(entry))]
            for outcome in outcomes { members[outcome.rawValue] = .array(report.items(outcome).map(entry)) }
            return JSON.render(.object(members)) + "\n"
        }
    }

    private static func entry(_ item: Item) -> JSON.Value {
        ItemRenderer.json(ItemRenderer.Entry(item: item, secret: nil), returns: [.attributes, .persistentRef])
    }
}
