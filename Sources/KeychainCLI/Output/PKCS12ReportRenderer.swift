import Glibc
import KeychainCore

/// A PKCS#12 import's counts, in words or as one JSON object.
enum PKCS12ReportRenderer {
    static func render(_ report: Keychain.PKCS12Report, format: OutputFormat) -> String {
        switch format {
        case .text:
            func count(_ number: Int, _ one: String, _ many: String) -> String { "\(number) \(number == 1 ? one : many)" }
            var text =
                "\(count(report.identitiesAdded, "identity", "identities")) and "
                + "\(count(report.certificatesAdded, "certificate", "certificates")) added; "
                + "\(report.identitiesPresent + report.certificatesPresent) already stored"
            if report.unpairedKeys > 0 {
                text += "; \(count(report.unpairedKeys, "private key", "private keys")) without a certificate left out"
            }
            return text + (report.dryRun ? " (dry run: nothing was written)" : "") + "\n"
        case .json:
            let members: [String: JSON.Value] = [
                "identities": .object([
                    "added": .number(Int64(report.identitiesAdded)), "present": .number(Int64(report.identitiesPresent)),
                ]),
                "certificates": .object([
                    "added": .number(Int64(report.certificatesAdded)), "present": .number(Int64(report.certificatesPresent)),
                ]),
                "unpairedKeys": .number(Int64(report.unpairedKeys)), "dryRun": .bool(report.dryRun),
            ]
            return JSON.render(.object(members)) + "\n"
        }
    }
}
