import CommandLineKit
import KeychainCore
import TextEscaping

/// `explain`'s output: text for people, stable sorted JSON for programs (docs/REFERENCE.md).
struct ExplanationRenderer {
    let explanation: Explanation
    let profile: Profile
    /// The groups the call is explained with: the profile's, or a team change's.
    let groups: AccessGroupList
    let teamChange: TeamChangeReport?
    let request: ItemRequest
    let device: DeviceState

    /// What explain cannot see.
    static let scope =
        "this keychain file only, on one simulated device: not other devices, iCloud, or the macOS file-based keychain (which ignores access groups)"

    private static let verdictWords: [(Explanation.Verdict, String)] = [
        (.visible, "VISIBLE"), (.hidden, "HIDDEN"), (.nearMiss, "NEAR MISS"), (.blocked, "BLOCKED"), (.readOnly, "READ-ONLY"),
    ]

    private static func word(_ verdict: Explanation.Verdict) -> String { verdictWords.first { $0.0 == verdict }!.1 }

    /// The codes the item line shows, in this order, when present.
    private static let shownCodes = Schema.naming + [Schema.label, Schema.accessGroup, Schema.protection]

    private var predictedName: (status: Int32, name: String) {
        explanation.predicted.map { ($0.status.rawValue, $0.status.name) } ?? (0, "errSecSuccess")
    }

    var text: String {
        let queryText = request.attributes.map { "\($0.code)=\($0.input.displayText.terminalSafe)" }.joined(separator: " ")
        var out = "query: \(explanation.operation.rawValue) \(request.itemClass ?? "genp") \(queryText)\n"
        out += "profile: \(profile.path) (\(profile.platform.rawValue))"
        if let teamChange { out += " signed by \(teamChange.change.to)" }
        out += " · reads \(list(groups.readable))"
        out += explanation.operation == .find ? "\n" : " · writes \(list(groups.writable))\n"
        out += "device: \(device.lock.rawValue)\n"
        if let teamChange { out += TeamChangeOption.text([(nil, teamChange)]) }
        let counts = Self.verdictWords.compactMap { verdict, word -> String? in
            let count = explanation.candidates.filter { $0.verdict == verdict }.count
            guard count > 0 else { return nil }
            return "\(count) \(word.lowercased())\(count > 1 && verdict == .nearMiss ? "es" : "")"
        }
        let predicted = predictedName
        out += "result: \(predicted.name) (\(predicted.status))"
        out += counts.isEmpty ? ": no item matches or nearly matches\n" : ": \(counts.joined(separator: ", "))\n"
        if let hint = explanation.predicted?.hint, !hint.isEmpty { out += "  \(hint.terminalSafe)\n" }
        for candidate in explanation.candidates {
            out += "\n" + itemLine(candidate) + "\n"
            let word = Self.word(candidate.verdict)
            if candidate.reasons.isEmpty { out += "  \(word)\n" }
            for (index, reason) in candidate.reasons.enumerated() {
                let label = index == 0 ? word : ""
                out += "  " + label.padding(11) + reason.text.terminalSafe + "\n"
            }
            for note in candidate.notes { out += "  note: \(Self.noteText(note))\n" }
            for fix in candidate.fixes { out += "  fix: \(fix.terminalSafe)\n" }
        }
        if explanation.omitted > 0 || explanation.unrelated > 0 {
            out += "\n"
            if explanation.omitted > 0 { out += "\(explanation.omitted) more candidates not listed (--candidates N lists more)\n" }
            if explanation.unrelated > 0 { out += "\(explanation.unrelated) other items differ in more than two ways\n" }
        }
        out += "scope: \(Self.scope)\n"
        return out
    }

    private func list(_ groups: [String]) -> String { groups.isEmpty ? "nothing" : groups.joined(separator: ", ") }

    private func itemLine(_ candidate: Explanation.Candidate) -> String {
        let item = candidate.item
        var parts = ["ref=\(item.persistentRef.base64)", item.itemClass.rawValue]
        for code in Self.shownCodes {
            if let value = item.attributes[code]?.displayText, !value.isEmpty { parts.append("\(code)=\(value.terminalSafe)") }
        }
        parts.append("sync=\(item.isSynchronizable ? "yes" : "no")")
        if candidate.notes.contains(.damaged) {
            parts.append("(other attributes unreadable: the row is damaged)")
        } else if !candidate.opened {
            parts.append("(other attributes sealed: its class is locked)")
        }
        return parts.joined(separator: " ")
    }

    private static func noteText(_ note: Explanation.Note) -> String {
        switch note {
        case .thisDeviceOnly: "this-device-only: not restored to another device; in backups only when they are encrypted"
        case .syncThisDeviceOnly: "synchronizable but this-device-only: it never leaves this device"
        case .asksAuthentication: "its access control asks for authentication when it is read or changed"
        case .damaged:
            "damaged: its sealed attributes do not open (tampered, or written with another key); the calls report it as errSecDecode (-26275), and 'keychainctl verify' names it"
        }
    }

    var json: JSON.Value {
        let candidates: [JSON.Value] = explanation.candidates.map { candidate in
            var item = ItemRenderer.json(ItemRenderer.Entry(item: candidate.item, secret: nil), returns: [.attributes, .persistentRef])
            if case .object(var members) = item {
                members["opened"] = .bool(candidate.opened)
                item = .object(members)
            }
            let reasons: [JSON.Value] = candidate.reasons.map { reason in
                var object: [String: JSON.Value] = ["code": .string(reason.code.rawValue), "text": .string(reason.text)]
                if let attribute = reason.attribute { object["attr"] = .string(attribute) }
                if let value = reason.itemValue { object["item"] = .string(value) }
                if let value = reason.queryValue { object["query"] = .string(value) }
                return .object(object)
            }
            return .object([
                "item": item, "verdict": .string(candidate.verdict.rawValue), "reasons": .array(reasons),
                "notes": .array(candidate.notes.map { .string($0.rawValue) }), "fixes": .array(candidate.fixes.map { .string($0) }),
            ])
        }
        var query: [String: JSON.Value] = [ItemJSON.classKey: .string(request.itemClass ?? "genp")]
        for (code, input) in request.attributes { query[code] = .string(input.displayText) }
        let predicted = predictedName
        var predictedObject: [String: JSON.Value] = ["status": .number(Int64(predicted.status)), "name": .string(predicted.name)]
        if let hint = explanation.predicted?.hint { predictedObject["hint"] = .string(hint) }
        var members: [String: JSON.Value] = [
            "operation": .string(explanation.operation.rawValue), "candidates": .array(candidates),
            "omitted": .number(Int64(explanation.omitted)), "unrelated": .number(Int64(explanation.unrelated)),
            "predicted": .object(predictedObject), "query": .object(query), "scope": .string(Self.scope),
            "device": .string(device.lock.rawValue),
            "profile": .object([
                "file": .string(profile.path), "default": groups.defaultGroup.map { .string($0) } ?? .null,
                "platform": .string(profile.platform.rawValue), "readable": .array(groups.readable.map { .string($0) }),
                "writable": .array(groups.writable.map { .string($0) }),
            ]),
        ]
        if let teamChange { members["teamChange"] = TeamChangeOption.json(teamChange) }
        return .object(members)
    }
}

extension String {
    /// Padded with spaces to `width` characters.
    fileprivate func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(1, width - count)) }
}
