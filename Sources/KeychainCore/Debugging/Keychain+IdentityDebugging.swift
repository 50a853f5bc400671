import KeychainFormats
import KeychainFoundation

/// `matrix` and `explain` for identities: the join made of what each half's rows show, so that a
/// target that reads the certificate but not its key is seen not to have the identity.
extension Keychain {
    /// One row per identity among the rows the query selects (a certificate and a private key
    /// whose `klbl` is its `pkhh`, halves routed as a find routes them); a target's cell reads
    /// (or writes) only when it reads (or writes) both halves, with the marks of both. Halves
    /// whose class is locked or whose row is damaged show no attributes, so they pair with nothing.
    func identityMatrix(_ request: ItemRequest, targets: [Caller]) throws -> AccessMatrix {
        let halves = Self.identityHalves(request)
        let certificates = try matrix(halves.certificate, targets: targets)
        let keys = try matrix(halves.key, targets: targets)
        var rows: [AccessMatrix.ItemRow] = []
        var cellSets: [[AccessMatrix.Cell]] = []
        var counts: [String: Int] = [:]
        for certificate in certificates.items where certificate.sealed == nil && !certificate.item.isTombstone {
            for key in keys.items where key.sealed == nil && !key.item.isTombstone && Self.completes(key.item, certificate.item) {
                let cells = zip(certificate.cells, key.cells).map { pair in
                    AccessMatrix.Cell(
                        read: pair.0.read && pair.1.read, write: pair.0.write && pair.1.write,
                        marks: AccessMatrix.Mark.allCases.filter { pair.0.marks.contains($0) || pair.1.marks.contains($0) })
                }
                let cellSet =
                    cellSets.firstIndex(of: cells)
                    ?? {
                        cellSets.append(cells)
                        return cellSets.count - 1
                    }()
                let identity = Self.identity(certificate: certificate.item, key: key.item)
                rows.append(
                    AccessMatrix.ItemRow(item: identity, sealed: nil, cells: cells, cellSet: cellSet, keyGroup: key.item.accessGroup))
                counts[identity.accessGroup, default: 0] += 1
            }
        }
        let groups = certificates.groups.map { AccessMatrix.GroupRow(group: $0.group, items: counts[$0.group] ?? 0, cells: $0.cells) }
        return AccessMatrix(targets: targets, items: rows, cellSets: cellSets, groups: groups, landings: certificates.landings)
    }
}

extension Keychain {
    /// `explain` on identities. A find is explained half by half, each half's query routed as the
    /// join routes it; a visible half whose partner (a visible private key whose `klbl` is the
    /// certificate's `pkhh`, or the reverse) is missing is a near miss saying so, and no pair is
    /// errSecItemNotFound. A delete or update applies the same query to certificates and then
    /// keys, so both are explained with it. An add takes files, and is explained per class.
    func explainIdentities(_ operation: Explanation.Operation, _ request: ItemRequest, caller: Caller, limit: Int) throws
        -> Explanation
    {
        var halves = Self.identityHalves(request)
        switch operation {
        case .add:
            throw KeychainError(
                .param,
                hint:
                    "an identity is added from its files (add --class idnt --ref-file); explain each half's add with --class cert and --class keys."
            )
        case .update, .delete:
            halves = Self.classHalves(request)
        case .find:
            halves.certificate.limit = .value(.all)
            halves.key.limit = .value(.all)
        }
        let certificates = try explain(operation, halves.certificate, caller: caller, limit: limit)
        let keys = try explain(operation, halves.key, caller: caller, limit: limit)
        var predicted = certificates.predicted ?? keys.predicted
        var candidates = certificates.candidates + keys.candidates
        if operation == .find {
            let visible = candidates.filter { $0.verdict == .visible && $0.opened }.map(\.item)
            func partnered(_ item: Item) -> Bool {
                item.itemClass == .certificate
                    ? visible.contains { $0.itemClass == .key && Self.completes($0, item) }
                    : visible.contains { $0.itemClass == .certificate && Self.completes(item, $0) }
            }
            let anyPair = visible.contains { $0.itemClass == .certificate && partnered($0) }
            candidates = candidates.map { candidate in
                guard candidate.verdict == .visible, candidate.opened, !partnered(candidate.item) else { return candidate }
                let item = candidate.item
                let text =
                    item.itemClass == .certificate
                    ? "no private key this caller sees has klbl equal to this certificate's pkhh"
                    : item.attributes[Schema.isPrivate] == .bool(true)
                        ? "no certificate this caller sees has pkhh equal to this key's klbl" : "the join takes private keys only (priv)"
                return Explanation.Candidate(
                    item: item, opened: true, verdict: .nearMiss, reasons: [Explanation.Reason(code: .noIdentityPartner, text: text)],
                    notes: candidate.notes,
                    fixes: [
                        item.itemClass == .certificate
                            ? "add its private key (add --class keys --ref-file KEY) in a group this caller reads"
                            : "add its certificate (add --class cert --ref-file CERT) in a group this caller reads"
                    ])
            }
            if predicted == nil, !anyPair {
                predicted = KeychainError(.itemNotFound, hint: "no certificate and private key this caller sees make an identity.")
            }
        }
        return Explanation(
            operation: operation, predicted: predicted, candidates: candidates, omitted: certificates.omitted + keys.omitted,
            unrelated: certificates.unrelated + keys.unrelated)
    }
}
