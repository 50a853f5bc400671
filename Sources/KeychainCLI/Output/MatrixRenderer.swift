import CommandLineKit
import KeychainCore
import TextEscaping

/// `matrix`'s output: a grid for people, stable sorted JSON for programs (docs/REFERENCE.md).
struct MatrixRenderer {
    let matrix: AccessMatrix
    /// The profile behind each column (a team change's columns repeat the targets' profiles).
    let profiles: [Profile]
    /// One per target given, when `--team-change` was.
    let teamChanges: [TeamChangeReport]
    let request: ItemRequest
    /// `nil` when there is no keychain (`missingKeychain`): the report is then the entitlements'.
    let device: DeviceState?
    let byGroup: Bool
    /// The keychain path that holds no keychain, for a report from the entitlements alone.
    var missingKeychain: String? = nil

    /// What each mark means, in the order marks are shown.
    static let markMeanings: [(mark: AccessMatrix.Mark, meaning: String)] = [
        (.group, "the target is not entitled to the item's access group"),
        (.platform, "macOS ignores the entitlement naming the group: no provisioning profile validates it"),
        (.tombstone, "a tombstone (a deleted synchronizable item), invisible to every query"),
        (.sync, "left out by the sync filter: readable only with --sync any"),
        (.locked, "its class is locked in this device state: a call that reaches it fails with -25308"),
        (.damaged, "its sealed attributes do not open (edited without the key): calls report errSecDecode (-26275); run verify"),
    ]

    /// The longest attribute value an item label shows before cutting it (the group is never cut).
    private static let valueWidth = 32

    /// The codes an item label shows, in this order, when present.
    private static let shownCodes = Schema.naming + [Schema.label, Schema.accessGroup]

    /// "RW", "R", "—G", "RW(S)".
    static func text(_ cell: AccessMatrix.Cell) -> String {
        let letters = cell.marks.map(\.rawValue).joined()
        guard cell.read else { return "—" + letters }
        let access = cell.write ? "RW" : "R"
        return letters.isEmpty ? access : "\(access)(\(letters))"
    }

    private var names: [String] { matrix.targets.map(\.name) }

    /// "acct=alice svce=api agrp=G sync": ten thousand rows of them, so built as bytes.
    private func label(_ row: AccessMatrix.ItemRow) -> String {
        let item = row.item
        var out: [UInt8] = []
        out.reserveCapacity(96)
        for code in Self.shownCodes {
            guard let value = item.attributes[code]?.displayText, !value.isEmpty else { continue }
            if !out.isEmpty { out.append(UInt8(ascii: " ")) }
            out += code.utf8
            out.append(UInt8(ascii: "="))
            let safe = value.containsControlCharacters ? value.terminalSafe : value
            // At most `valueWidth` bytes are surely at most `valueWidth` characters.
            if code == Schema.accessGroup || safe.utf8.count <= Self.valueWidth || safe.count <= Self.valueWidth {
                out += safe.utf8
            } else {
                out += (String(safe.prefix(Self.valueWidth - 1)) + "…").utf8
            }
        }
        if let keyGroup = row.keyGroup, !keyGroup.sameBytes(as: item.accessGroup) { out += " key agrp=\(keyGroup.terminalSafe)".utf8 }
        if item.isSynchronizable { out += (out.isEmpty ? "sync" : " sync").utf8 }
        if let sealed = row.sealed {
            if !out.isEmpty { out.append(UInt8(ascii: " ")) }
            out += (sealed == .locked ? "(sealed: class locked)" : "(damaged)").utf8
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The columns `text` takes: its Unicode scalars, counted as UTF-8 lead bytes.
    private static func width(_ text: String) -> Int { text.utf8.reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) } }

    var text: String {
        let queryText = request.attributes.map { "\($0.code)=\($0.input.displayText.terminalSafe)" }.joined(separator: " ")
        var out = "query: \(request.itemClass ?? "genp") \(queryText)".trimmingTrailingSpace + "\n"
        if let missingKeychain {
            out += "keychain: none at \(missingKeychain.terminalSafe); the targets' entitlements alone (no items, no device state)\n\n"
        } else {
            out += "device: \(device?.lock.rawValue ?? "")\n\n"
        }
        // Rows share a few distinct sets of cells: each is spelled once.
        let texts = matrix.cellSets.map { $0.map(Self.text) }
        let rows: [(label: String, cells: [String])] =
            byGroup
            ? matrix.groups.map { row in
                (
                    missingKeychain == nil
                        ? "\(row.group.terminalSafe) (\(row.items) item\(row.items == 1 ? "" : "s"))" : row.group.terminalSafe,
                    row.cells.map(Self.text)
                )
            }
            : matrix.items.map { (label($0), texts[$0.cellSet]) }
        let header: [(label: String, cells: [String])] = [
            (byGroup ? "group" : "item", names.map(\.terminalSafe)),
            ("platform", profiles.map(\.platform.rawValue)),
            ("default add group", matrix.landings.map { $0.group?.terminalSafe ?? "(none)" }),
            ("readable groups", matrix.targets.map { String($0.groups.readable.count) }),
        ]
        // Laid out in bytes: ten thousand rows of padded Strings cost more than the matrix itself.
        let all = header + rows
        let labelWidths = all.map { Self.width($0.label) }
        let labelWidth = labelWidths.max() ?? 0
        let widths = names.indices.map { column in all.map { Self.width($0.cells[column]) }.max() ?? 0 }
        var grid: [UInt8] = []
        for (index, row) in all.enumerated() {
            grid += row.label.utf8
            var pending = labelWidth + 2 - labelWidths[index]
            for (column, cell) in row.cells.enumerated() {
                grid += repeatElement(UInt8(ascii: " "), count: pending)
                grid += cell.utf8
                pending = widths[column] + 2 - Self.width(cell)
            }
            grid.append(UInt8(ascii: "\n"))
        }
        out += String(decoding: grid, as: UTF8.self)
        if rows.isEmpty { out += "(no \(byGroup ? "group" : "item") matches the query)\n" }
        out += "\nadds without a group:\n"
        for (index, landing) in matrix.landings.enumerated() {
            let name = names[index].terminalSafe
            guard let group = landing.group else {
                out += "  \(name): cannot add, no writable access group (errSecMissingEntitlement, -34018)\n"
                continue
            }
            let visible = landing.visibleTo.map { names[$0].terminalSafe }
            let hidden = landing.hiddenFrom.map { names[$0].terminalSafe }
            out += "  \(name) → \(group.terminalSafe): "
            out +=
                hidden.isEmpty
                ? (names.count == 1 ? "visible to \(name)\n" : "visible to every target\n")
                : visible == [name]
                    ? "visible to \(name) only; hidden from \(hidden.joined(separator: ", "))\n"
                    : "visible to \(visible.joined(separator: ", ")); hidden from \(hidden.joined(separator: ", "))\n"
        }
        let strangers = matrix.strangers
        if !strangers.isEmpty {
            out += "\nno access group in common (neither reads what the other stores):\n"
            out += strangers.map { "  \(names[$0.0].terminalSafe) and \(names[$0.1].terminalSafe)\n" }.joined()
        }
        let cells = (byGroup ? matrix.groups.map(\.cells) : matrix.items.map(\.cells)).joined()
        let used = Self.markMeanings.filter { meaning in cells.contains { $0.marks.contains(meaning.mark) } }
        if !used.isEmpty {
            out += "\nmarks:\n" + used.map { "  \($0.mark.rawValue)  \($0.meaning)\n" }.joined()
        }
        if !teamChanges.isEmpty { out += "\n" }
        out += TeamChangeOption.text(teamChanges.enumerated().map { (names[$0.offset], $0.element) })
        out += "scope: \(ExplanationRenderer.scope)\n"
        return out
    }

    private static func json(_ cell: AccessMatrix.Cell) -> JSON.Value {
        .object(["read": .bool(cell.read), "write": .bool(cell.write), "reasons": .array(cell.marks.map { .string($0.rawValue) })])
    }

    var json: JSON.Value {
        let targets: [JSON.Value] = zip(matrix.targets, profiles).enumerated().map { index, column in
            let (target, profile) = column
            let groups = target.groups
            var members: [String: JSON.Value] = [
                "name": .string(target.name), "file": .string(profile.path), "platform": .string(profile.platform.rawValue),
                "default": groups.defaultGroup.map { .string($0) } ?? .null,
                "readable": .array(groups.readable.map { .string($0) }), "writable": .array(groups.writable.map { .string($0) }),
            ]
            if teamChanges.indices.contains(index) {
                members["teamChange"] = TeamChangeOption.json(teamChanges[index])
            } else if !teamChanges.isEmpty {
                members["signedBy"] = .string(teamChanges[index - teamChanges.count].change.to)
            }
            return .object(members)
        }
        let rows: [JSON.Value] =
            byGroup
            ? matrix.groups.map { row in
                .object(["group": .string(row.group), "items": .number(Int64(row.items)), "cells": .array(row.cells.map(Self.json))])
            }
            : matrix.items.map { row in
                var item = ItemRenderer.json(ItemRenderer.Entry(item: row.item, secret: nil), returns: [.attributes, .persistentRef])
                if case .object(var members) = item {
                    members["opened"] = .bool(row.sealed == nil)
                    if let sealed = row.sealed { members["sealed"] = .string(sealed.rawValue) }
                    if let keyGroup = row.keyGroup { members["keyGroup"] = .string(keyGroup) }
                    item = .object(members)
                }
                return .object(["item": item, "cells": .array(row.cells.map(Self.json))])
            }
        let landings: [JSON.Value] = matrix.landings.enumerated().map { index, landing in
            .object([
                "profile": .string(names[index]), "group": landing.group.map { .string($0) } ?? .null,
                "visibleTo": .array(landing.visibleTo.map { .string(names[$0]) }),
                "hiddenFrom": .array(landing.hiddenFrom.map { .string(names[$0]) }),
            ])
        }
        var query: [String: JSON.Value] = [ItemJSON.classKey: .string(request.itemClass ?? "genp")]
        for (code, input) in request.attributes { query[code] = .string(input.displayText) }
        return .object([
            "by": .string(byGroup ? "group" : "item"), "profiles": .array(targets), "rows": .array(rows), "defaults": .array(landings),
            "query": .object(query), "device": device.map { .string($0.lock.rawValue) } ?? .null,
            "keychain": missingKeychain == nil ? .string("opened") : .null,
            "strangers": .array(matrix.strangers.map { .array([.string(names[$0.0]), .string(names[$0.1])]) }),
            "scope": .string(ExplanationRenderer.scope),
        ])
    }
}

extension String {
    /// Without trailing spaces.
    fileprivate var trimmingTrailingSpace: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
