import KeychainCore
import TextEscaping

/// What `exec` prints of its own: `--dry-run`'s plan (attributes and references, never values),
/// and `--ci-mask`'s `::add-mask::` lines.
enum ExecReport {
    /// Each variable and file CMD would get, and from which item.
    static func dryRun(_ resolved: ExecPlan.Resolved, command: [String], format: OutputFormat) -> String {
        let given = resolved.variables.filter { $0.item != nil }.map { ($0, false) } + resolved.files.map { ($0, true) }
        switch format {
        case .text:
            var out = ""
            for (variable, isFile) in given {
                guard let item = variable.item else { continue }
                out += "\(isFile ? "file " : "")\(variable.name) ← \(item.summary(showing: Schema.naming + [Schema.accessGroup]))\n"
            }
            for (variable, _) in given where variable.item == nil { out += "\(variable.name)\n" }
            out += "would run: \(command.map(\.terminalSafe).joined(separator: " "))\n"
            return out
        case .json:
            let variables: [JSON.Value] = given.compactMap { variable, isFile in
                guard let item = variable.item else { return nil }
                return .object([
                    "name": .string(variable.name), "file": .bool(isFile), ItemJSON.classKey: .string(item.itemClass.rawValue),
                    Schema.service: item.attributes[Schema.service]?.stringValue.map(JSON.Value.string) ?? .null,
                    Schema.account: item.attributes[Schema.account]?.stringValue.map(JSON.Value.string) ?? .null,
                    Schema.accessGroup: .string(item.accessGroup), "ref": .string(item.persistentRef.base64),
                ])
            }
            return JSON.render(.object(["variables": .array(variables), "command": .array(command.map(JSON.Value.string))])) + "\n"
        }
    }

    /// `::add-mask::LINE` for every line of every secret: GitHub Actions then masks them in the
    /// whole step's log, not only in what keychainctl pipes. Lines shorter than the masker's
    /// minimum are left out, as the masker leaves them: masking "1" would garble every log line.
    /// The runner reads them from stdout or stderr; they go to the first of those that is not a
    /// regular file (a redirected log, an artifact, an env file would keep every secret in
    /// clear), never to `dataStream` (export's output), and nowhere, with a warning, when both are files.
    static func addMaskLines(_ secrets: [(name: String, value: SecretBytes)], dataStream: Int32? = nil) {
        guard let fd = [Int32(1), 2].first(where: { $0 != dataStream && !StandardStreams.isRegularFile($0) }) else {
            return StandardStreams.warn(
                "::add-mask:: lines were not printed: standard output and error go to files, where they would keep the secrets in clear.")
        }
        for (_, value) in secrets {
            value.withUnsafeBytes { bytes in
                for line in bytes.split(omittingEmptySubsequences: true, whereSeparator: { $0 == 0x0A || $0 == 0x0D })
                where line.count >= SecretMasker.minimumBytes {
                    let out = SecretBytes(count: 0)
                    Array("::add-mask::".utf8).withUnsafeBytes { out.append($0) }
                    // The runner unescapes %25, %0D and %0A in a command's data: a secret holding
                    // them would be registered, and masked, as another string.
                    var start = line.startIndex
                    for index in line.indices {
                        let escape: [UInt8]? =
                            switch line[index] {
                            case UInt8(ascii: "%"): Array("%25".utf8)
                            case 0x0D: Array("%0D".utf8)
                            case 0x0A: Array("%0A".utf8)
                            default: nil
                            }
                        guard let escape else { continue }
                        out.append(UnsafeRawBufferPointer(rebasing: line[start..<index]))
                        escape.withUnsafeBytes { out.append($0) }
                        start = index + 1
                    }
                    out.append(UnsafeRawBufferPointer(rebasing: line[start...]))
                    withUnsafeBytes(of: UInt8(0x0A)) { out.append($0) }
                    StandardStreams.out(secret: out, fd: fd)
                }
            }
        }
    }
}
