import KeychainCore
import TextEscaping

/// `lint`'s reports: compiler-style text, stable sorted JSON, and SARIF 2.1.0 for CI annotations.
struct LintRenderer {
    let findings: [LintFinding]
    /// How many files were read.
    let files: Int

    private func count(_ severity: LintRule.Severity) -> Int { findings.filter { $0.severity == severity }.count }

    private static func plural(_ count: Int, _ word: String) -> String { "\(count) \(word)\(count == 1 ? "" : "s")" }

    /// `2 errors, 1 warning, 1 note in 4 files`.
    var summary: String {
        let parts = [
            (count(.error), "error"), (count(.warning), "warning"), (count(.info), "note"),
        ].filter { $0.0 > 0 }.map { Self.plural($0.0, $0.1) }
        return "\(parts.isEmpty ? "no findings" : parts.joined(separator: ", ")) in \(Self.plural(files, "file"))"
    }

    var text: String {
        var out = ""
        for finding in findings {
            let place = [finding.file, finding.location].compactMap { $0?.terminalSafe }.joined(separator: ": ")
            out += "\(finding.severity.rawValue)[\(finding.rule.rawValue)] \(place): \(finding.message.terminalSafe)\n"
            if let fix = finding.fix { out += "  fix: \(fix.terminalSafe)\n" }
        }
        return out + summary + "\n"
    }

    private static func runtime(_ finding: LintFinding) -> JSON.Value {
        finding.runtime.map { .object(["status": .number(Int64($0.status)), "name": .string($0.name)]) } ?? .null
    }

    /// `{"file", "key", "index", "action", "value"}`: key, index and value only where they apply.
    private static func json(_ edit: LintEdit) -> JSON.Value {
        var object: [String: JSON.Value] = ["file": .string(edit.file), "action": .string(edit.action.name)]
        if let key = edit.key { object["key"] = .string(key) }
        if let index = edit.index { object["index"] = .number(Int64(index)) }
        if let value = edit.action.value { object["value"] = .string(value) }
        return .object(object)
    }

    var json: JSON.Value {
        let list: [JSON.Value] = findings.map { finding in
            var object: [String: JSON.Value] = [
                "id": .string(finding.rule.rawValue), "severity": .string(finding.severity.rawValue), "file": .string(finding.file),
                "message": .string(finding.message), "runtime": Self.runtime(finding),
                "sources": .array(LintRule.rule(finding.rule).sources.map { .string($0) }),
            ]
            if let target = finding.target { object["target"] = .string(target) }
            if let key = finding.key { object["key"] = .string(key) }
            if let index = finding.index { object["index"] = .number(Int64(index)) }
            if let value = finding.value { object["value"] = .string(value) }
            if let fix = finding.fix { object["fix"] = .string(fix) }
            if !finding.edits.isEmpty { object["edits"] = .array(finding.edits.map(Self.json)) }
            return .object(object)
        }
        return .object([
            "findings": .array(list),
            "summary": .object([
                "errors": .number(Int64(count(.error))), "warnings": .number(Int64(count(.warning))),
                "notes": .number(Int64(count(.info))), "files": .number(Int64(files)),
            ]),
        ])
    }

    /// SARIF's level for a severity.
    private static func level(_ severity: LintRule.Severity) -> String {
        switch severity {
        case .error: "error"
        case .warning: "warning"
        case .info: "note"
        }
    }

    /// SARIF 2.1.0 (OASIS): one run, the rule table as the driver's rules, one result per finding
    /// located at its file and, as a logical location, its entitlement.
    var sarif: JSON.Value {
        let rules: [JSON.Value] = LintRule.all.map { rule in
            .object([
                "id": .string(rule.id.rawValue), "name": .string(rule.title),
                "shortDescription": .object(["text": .string(rule.title)]),
                "defaultConfiguration": .object(["level": .string(Self.level(rule.severity))]),
                "properties": .object(["sources": .array(rule.sources.map { .string($0) })]),
            ])
        }
        let results: [JSON.Value] = findings.map { finding in
            var location: [String: JSON.Value] = [
                "physicalLocation": .object(["artifactLocation": .object(["uri": .string(finding.file)])])
            ]
            if let key = finding.key {
                location["logicalLocations"] = .array([
                    .object(["fullyQualifiedName": .string(key + (finding.index.map { "[\($0)]" } ?? "")), "kind": .string("member")])
                ])
            }
            var text = (finding.location.map { $0 + ": " } ?? "") + finding.message
            if let fix = finding.fix { text += " Fix: " + fix }
            return .object([
                "ruleId": .string(finding.rule.rawValue),
                "ruleIndex": .number(Int64(LintRule.all.firstIndex { $0.id == finding.rule } ?? 0)),
                "level": .string(Self.level(finding.severity)), "message": .object(["text": .string(text)]),
                "locations": .array([.object(location)]),
            ])
        }
        return .object([
            "$schema": .string("https://json.schemastore.org/sarif-2.1.0.json"), "version": .string("2.1.0"),
            "runs": .array([
                .object([
                    "tool": .object([
                        "driver": .object([
                            "name": .string("keychainctl"),
                            "version": .string(VersionReport.number),
                            "rules": .array(rules),
                        ])
                    ]),
                    "results": .array(results),
                ])
            ]),
        ])
    }
}
