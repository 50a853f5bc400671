import CommandLineKit
import KeychainCore
import TextEscaping

/// `--team-change TEAMID` of explain, matrix and lint: the option, and how its report reads.
enum TeamChangeOption {
    /// The option with `help`: ten upper-case letters or digits, anything else a usage error.
    static func option(_ help: String) -> Option<String> {
        Option(
            "team-change", nil, "teamid", expected: "a Team ID: ten upper-case letters or digits, such as ZZZZZ99999", help
        ) { TeamChange.isTeamID($0) ? $0 : nil }
    }

    private static func list(_ groups: [TeamChangeReport.Group]) -> String {
        groups.map { "\($0.name.terminalSafe) (\($0.items) item\($0.items == 1 ? "" : "s"))" }.joined(separator: ", ")
    }

    /// The reports' lines: one report (explain), or one per named target (matrix).
    static func text(_ reports: [(target: String?, report: TeamChangeReport)]) -> String {
        guard let first = reports.first?.report.change else { return "" }
        let teams = Set(reports.map { $0.report.change.from ?? "" })
        let from = teams.count == 1 ? first.from.map { "\($0) " } ?? "" : ""
        var out = "team change \(from)→ \(first.to) (app transfer or App ID prefix migration; QA1726, forums 706128):\n"
        for (target, report) in reports {
            var indent = "  "
            if let target {
                out += "  \(target.terminalSafe)" + (report.change.from.map { " (signed by \($0))" } ?? "") + ":\n"
                indent += "  "
            }
            out += lines(report).map { indent + $0 + "\n" }.joined()
        }
        return out
    }

    private static func lines(_ report: TeamChangeReport) -> [String] {
        let change = report.change
        guard let from = change.from else { return ["no team-prefixed access group: nothing is lost"] }
        guard !report.lost.isEmpty else {
            return [(from == change.to ? "already signed by \(from)" : "no access group starts with \(from).") + ": nothing is lost"]
        }
        var lines = [
            "lost: \(list(report.lost)): the new team's builds claim \(change.to).… instead, so these items become unreachable (errSecItemNotFound, -25300)"
        ]
        if !report.kept.isEmpty { lines.append("kept: \(list(report.kept)), app groups only if transferred with the app") }
        if report.plan.isEmpty {
            lines.append("plan: nothing to move, the lost groups hold no items")
        } else {
            lines.append("plan, run by a build signed by \(from) before the transfer:")
            lines += report.plan.map { "  " + $0.terminalSafe }
        }
        return lines
    }

    static func json(_ report: TeamChangeReport) -> JSON.Value {
        func groups(_ list: [TeamChangeReport.Group]) -> JSON.Value {
            .array(list.map { .object(["group": .string($0.name), "items": .number(Int64($0.items))]) })
        }
        return .object([
            "from": report.change.from.map { .string($0) } ?? .null, "to": .string(report.change.to), "lost": groups(report.lost),
            "kept": groups(report.kept), "destination": .string(report.destination), "plan": .array(report.plan.map { .string($0) }),
        ])
    }
}
