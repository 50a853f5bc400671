import CommandLineKit
import KeychainCore
import TextEscaping

/// `docker-credential-keychainctl store|get|erase|list` (the binary called by that name, a link
/// Docker finds as `"credsStore": "keychainctl"`): Docker's credential helper protocol
/// (docker-credential-helpers) over the keychain. `store` reads `{"ServerURL", "Username",
/// "Secret"}`, `get` and `erase` a server URL, on standard input; `get` writes the same object and
/// `list` `{URL: username}` on standard output. A miss is the protocol's
/// `credentials not found in native keychain` on standard output, exit 1, as Docker expects.
///
/// Each login is an internet password shaped as docker-credential-osxkeychain shapes it (the
/// registry's host, port, protocol and path; the username as the account; the label "Docker
/// Credentials"), with the URL as given kept as its comment for `list`. The helper is an app of
/// its own (`keychainctl.program.docker-credential-keychainctl`) and never prompts.
enum DockerCredentialHelper {
    static let programName = "docker-credential-keychainctl"
    static let label = "Docker Credentials"
    static let notFound = "credentials not found in native keychain"

    /// The helper's context (no options: Docker passes none).
    static let spec = CommandSpec(name: programName, abstract: "Docker's credential helper over the keychain.", sections: [])

    private struct Refusal: Error { let message: String }

    static func run(_ arguments: [String]) -> Int32 {
        guard let action = arguments.first, arguments.count == 1, ["store", "get", "erase", "list", "version"].contains(action) else {
            StandardStreams.err("usage: \(programName) store|get|erase|list|version (Docker runs it: \"credsStore\": \"keychainctl\")\n")
            return ExitStatusTable.usage
        }
        if action == "version" {
            StandardStreams.out("\(programName) (keychainctl \(VersionReport.number))\n")
            return 0
        }
        do {
            let call = try CredentialHelperCall(spec)
            let keychain = try call.openKeychain()
            switch action {
            // A replace or an erase is one write: two logins racing leave one login, not two.
            case "store": try keychain.inOneWrite { try store(call, keychain: keychain) }
            case "get": try get(serverURL(call.input), call, keychain: keychain)
            case "erase": try keychain.inOneWrite { try erase(serverURL(call.input), call, keychain: keychain) }
            default: try list(call, keychain: keychain)
            }
            return 0
        } catch let refusal as Refusal {
            // The protocol's errors are one line on standard output (what Docker shows).
            StandardStreams.out(refusal.message + "\n")
            return 1
        } catch {
            StandardStreams.out("\(ErrorReporter.advice(of: error).linesTerminalSafe)\n")
            return 1
        }
    }

    /// A server URL given on standard input (one line; the newline Docker adds is not part of it).
    private static func serverURL(_ input: SecretBytes) throws -> String {
        guard var text = input.withUnsafeBytes({ String(exactly: $0) }) else { throw Refusal(message: "the server URL is not UTF-8") }
        while text.last == "\n" || text.last == "\r" { text.removeLast() }
        guard !text.isEmpty, !text.contains("\n") else { throw Refusal(message: "no server URL given") }
        return text
    }

    /// The attributes naming the login for `url` (any username).
    private static func request(_ url: String, limit: MatchLimit, returns: ReturnOptions) throws -> ItemRequest {
        guard var request = GitCredentialHelper.request(GitCredential(url: url), storing: false) else {
            throw Refusal(message: "no server in '\(url.terminalSafe)'")
        }
        request.limit = .value(limit)
        request.returns = .value(returns)
        return request
    }

    private static func store(_ call: CredentialHelperCall, keychain: Keychain) throws {
        var fields: [String: SecretBytes] = [:]
        try call.input.withUnsafeBytes { bytes in
            let value: JSONReader.Value
            do { value = try JSONReader.parse(bytes) } catch let error as JSONReader.Failure {
                throw Refusal(message: "store's input is not JSON (\(error.what) at byte \(error.offset + 1)); nothing was stored")
            }
            guard case .object(let members) = value else { throw Refusal(message: "store takes a JSON object") }
            for (key, value) in members where ["ServerURL", "Username", "Secret"].contains(key) {
                guard case .string(let range) = value else { throw Refusal(message: "\(key) is not a string") }
                let out = SecretBytes(count: 0)
                guard JSONReader.unescape(range, in: bytes, into: out) else { throw Refusal(message: "\(key) is not valid JSON text") }
                fields[key] = out
            }
        }
        func text(_ key: String) throws -> String {
            guard let field = fields[key], let text = field.withUnsafeBytes({ String(exactly: $0) }), !text.isEmpty else {
                throw Refusal(message: "store needs \(key)")
            }
            return text
        }
        let url = try text("ServerURL")
        let username = try text("Username")
        guard let secret = fields["Secret"] else { throw Refusal(message: "store needs Secret") }
        // One login per registry, as Docker keeps them: what was there for it goes first.
        try erase(url, call, keychain: keychain, required: false)
        var parts = GitCredential(url: url)
        parts.username = username
        guard var add = GitCredentialHelper.request(parts, storing: true) else { throw Refusal(message: "no server in the URL") }
        add.attributes.append((code: Schema.label, input: .value(.string(label))))
        add.attributes.append((code: Schema.comment, input: .value(.string(url))))
        _ = try keychain.add(add, secret: secret, caller: call.caller)
    }

    private static func get(_ url: String, _ call: CredentialHelperCall, keychain: Keychain) throws {
        guard let found = try call.find(request(url, limit: .one, returns: [.attributes, .data]), in: keychain).first else {
            throw Refusal(message: notFound)
        }
        let out = SecretBytes(count: 0)
        func text(_ string: String) { out.append(text: string) }
        text("{\"ServerURL\":")
        Array(url.utf8).withUnsafeBytes { appendJSONString($0, to: out) }
        text(",\"Username\":")
        Array((found.item.attributes[Schema.account]?.stringValue ?? "").utf8).withUnsafeBytes { appendJSONString($0, to: out) }
        text(",\"Secret\":")
        (found.secret ?? SecretBytes(count: 0)).withUnsafeBytes { appendJSONString($0, to: out) }
        text("}\n")
        StandardStreams.out(secret: out)
    }

    private static func erase(_ url: String, _ call: CredentialHelperCall, keychain: Keychain, required: Bool = true) throws {
        let found = try call.find(request(url, limit: .all, returns: [.attributes, .persistentRef]), in: keychain)
        if found.isEmpty, required { throw Refusal(message: notFound) }
        try call.delete(found, from: keychain)
    }

    private static func list(_ call: CredentialHelperCall, keychain: Keychain) throws {
        var request = ItemRequest(itemClass: ItemClass.internetPassword.rawValue, words: [(Schema.label, AttributeValue.literal(label))])
        request.limit = .value(.all)
        request.returns = .value([.attributes])
        let items = try call.find(request, in: keychain).map(\.item)
        let out = SecretBytes(count: 0)
        func text(_ string: String) { out.append(text: string) }
        text("{")
        for (index, item) in items.enumerated() {
            if index > 0 { text(",") }
            Array((item.attributes[Schema.comment]?.stringValue ?? "").utf8).withUnsafeBytes { appendJSONString($0, to: out) }
            text(":")
            Array((item.attributes[Schema.account]?.stringValue ?? "").utf8).withUnsafeBytes { appendJSONString($0, to: out) }
        }
        text("}\n")
        StandardStreams.out(secret: out)
    }

    /// `bytes` as a JSON string (quotes, backslashes and control characters escaped; UTF-8 kept),
    /// written into guarded memory.
    static func appendJSONString(_ bytes: UnsafeRawBufferPointer, to out: SecretBytes) {
        func put(_ string: String) { out.append(text: string) }
        put("\"")
        for byte in bytes {
            switch byte {
            case 0x22: put("\\\"")
            case 0x5C: put("\\\\")
            case 0x0A: put("\\n")
            case 0x0D: put("\\r")
            case 0x09: put("\\t")
            case 0..<0x20: put("\\u00" + String.hex(UInt32(byte), digits: 2))
            default: withUnsafeBytes(of: byte) { out.append($0) }
            }
        }
        put("\"")
    }
}
