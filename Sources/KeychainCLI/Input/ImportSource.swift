import CommandLineKit
import Glibc
import KeychainCore
import KeychainPlatform
import TextEscaping

/// What an import source needs of the command that reads it: where the items are, in what
/// format, and how an entry that names only itself (a dotenv line, a variable) becomes an item.
protocol ImportOptions {
    var file: String? { get }
    var inputFormat: ImportFormat? { get }
    var fromEnv: [String] { get }
    var service: String? { get }
    /// The request for the dotenv or environment entry `name`.
    func request(name: String) -> ItemRequest
    /// `item`, in the default group where it names none.
    func inDefaultGroup(_ item: Keychain.ImportItem) -> Keychain.ImportItem
}

/// Where `import`'s items come from, handed over one at a time: a json document, jsonl lines
/// (streamed), a dotenv file, or variables of keychainctl's own environment.
final class ImportSource {
    private let command: any ImportOptions
    private let name: String
    private var lines: LineReader?
    private var pending: [Keychain.ImportItem] = []
    private var handed = 0
    private var fd: Int32 = -1
    private let showProgress: Bool
    /// Warnings to print once the import is done (a readable input, a `$` in dotenv).
    private(set) var warnings: [String] = []

    init(_ command: any ImportOptions) throws {
        self.command = command
        showProgress = StandardStreams.isTerminal(2)
        if !command.fromEnv.isEmpty {
            name = "the environment"
            for variable in command.fromEnv {
                guard let value = Environment.takeSecret(variable) else {
                    throw InputError("--from-env: \(variable.terminalSafe) is not set (or empty); nothing was imported.")
                }
                pending.append(
                    Keychain.ImportItem(request: command.request(name: variable), secret: value, origin: "--from-env \(variable)"))
            }
            return
        }
        let path = command.file ?? "-"
        name = path == "-" ? "standard input" : path
        if path == "-" {
            fd = 0
        } else {
            fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
            guard fd >= 0 else { throw InputError("cannot open \(path): \(SystemError.text(errno)).") }
            var status = stat()
            if fstat(fd, &status) == 0, status.st_mode & 0o044 != 0 {
                warnings.append("\(path) can be read by other users (mode \(String(status.st_mode & 0o777, radix: 8))); it holds secrets.")
            }
        }
        let reader = LineReader(fd: fd, source: name, limit: InputLimits.jsonLineBytes)
        var format = command.inputFormat ?? Self.format(fromName: path)
        var first: SecretBytes?
        if format == nil {
            first = try reader.next()
            format = first.map(Self.sniff) ?? .jsonl
        }
        if format == .dotenv, command.service == nil {
            throw UsageError("dotenv items need --service (their svce; each NAME becomes an account).")
        }
        switch format ?? .jsonl {
        case .pkcs12:
            throw UsageError("a PKCS#12 import reads a FILE, not standard input.")
        case .jsonl:
            lines = reader
            if let first { try take(line: first, number: 1) }
        case .json, .dotenv:
            let whole = SecretBytes(count: 0)
            if let first {
                first.withUnsafeBytes { whole.append($0) }
                withUnsafeBytes(of: UInt8(0x0A)) { whole.append($0) }
            }
            while let line = try reader.next() {
                line.withUnsafeBytes { whole.append($0) }
                withUnsafeBytes(of: UInt8(0x0A)) { whole.append($0) }
                guard whole.count <= InputLimits.jsonDocumentBytes else {
                    throw InputTooLarge(source: name, limit: InputLimits.jsonDocumentBytes)
                }
            }
            if format == .dotenv { try takeDotEnv(whole) } else { try takeDocument(whole) }
        }
    }

    deinit { if fd > 0 { close(fd) } }

    /// The next item, or `nil` when there are no more.
    func next() throws -> Keychain.ImportItem? {
        while pending.isEmpty, let reader = lines, let line = try reader.next() {
            try take(line: line, number: reader.lineNumber)
        }
        guard !pending.isEmpty else { return nil }
        handed += 1
        if showProgress, handed % 10_000 == 0 { StandardStreams.err("\rimporting: \(handed) items…") }
        return pending.removeFirst()
    }

    private static func format(fromName path: String) -> ImportFormat? {
        if path.hasSuffix(".json") { return .json }
        if path.hasSuffix(".jsonl") || path.hasSuffix(".ndjson") { return .jsonl }
        if path.hasSuffix(".env") { return .dotenv }
        return nil
    }

    /// json when the input opens with `[` or `{"format"`, jsonl with any other `{`, else dotenv.
    private static func sniff(_ first: SecretBytes) -> ImportFormat {
        first.withUnsafeBytes { bytes in
            let text = bytes.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }
            guard let opening = text.first else { return .jsonl }
            if opening == UInt8(ascii: "[") { return .json }
            if opening == UInt8(ascii: "{") {
                let rest = text.dropFirst().drop { $0 == 0x20 || $0 == 0x09 }
                return rest.starts(with: Array("\"format\"".utf8)) ? .json : .jsonl
            }
            return .dotenv
        }
    }

    private func take(line: SecretBytes, number: Int) throws {
        let blank = line.withUnsafeBytes { $0.allSatisfy { $0 == 0x20 || $0 == 0x09 } }
        if blank { return }
        let origin = "\(name), line \(number)"
        try line.withUnsafeBytes { bytes in
            let value: JSONReader.Value
            do { value = try JSONReader.parse(bytes) } catch let error as JSONReader.Failure {
                throw KeychainError(
                    .param, hint: "\(origin) is not JSON (\(error.what) at byte \(error.offset + 1)). Nothing was imported.")
            }
            pending.append(command.inDefaultGroup(try ItemJSON.importItem(value, in: bytes, origin: origin)))
        }
    }

    private func takeDocument(_ whole: SecretBytes) throws {
        try whole.withUnsafeBytes { bytes in
            let value: JSONReader.Value
            do { value = try JSONReader.parse(bytes) } catch let error as JSONReader.Failure {
                throw KeychainError(.param, hint: "\(name) is not JSON (\(error.what) at byte \(error.offset + 1)). Nothing was imported.")
            }
            var items: [JSONReader.Value]
            switch value {
            case .array(let elements): items = elements
            case .object(let members):
                guard case .string(let format)? = members.first(where: { $0.key == "format" })?.value,
                    JSONReader.text(format, in: bytes) == ItemJSON.documentFormat,
                    case .array(let elements)? = members.first(where: { $0.key == "items" })?.value
                else {
                    throw KeychainError(
                        .param, hint: "\(name) is not a keychainctl-items document (format, version, items). Nothing was imported.")
                }
                if case .number(let version)? = members.first(where: { $0.key == "version" })?.value,
                    version != "\(ItemJSON.documentVersion)"
                {
                    throw KeychainError(.param, hint: "\(name) is version \(version) of the format; this keychainctl reads version 1.")
                }
                items = elements
            default: throw KeychainError(.param, hint: "\(name) holds neither an array nor a keychainctl-items document.")
            }
            for (index, element) in items.enumerated() {
                pending.append(command.inDefaultGroup(try ItemJSON.importItem(element, in: bytes, origin: "\(name), item \(index + 1)")))
            }
        }
    }

    private func takeDotEnv(_ whole: SecretBytes) throws {
        let parsed = try whole.withUnsafeBytes { try DotEnv.parse($0, source: name) }
        warnings += parsed.warnings
        for entry in parsed.entries {
            pending.append(
                Keychain.ImportItem(request: command.request(name: entry.name), secret: entry.value, origin: "\(name), line \(entry.line)"))
        }
    }
}
