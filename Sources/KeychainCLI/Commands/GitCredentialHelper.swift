import CommandLineKit
import KeychainCore
import TextEscaping

/// `git-credential-keychainctl get|store|erase` (the binary called by that name, a link git finds
/// as `credential.helper keychainctl`): git's credential helper protocol over the keychain. Each
/// credential is an internet password shaped as git-credential-osxkeychain shapes it: the host
/// as the server, its port apart, the protocol as its four-character code (`htps`), the path when
/// git sends one, the username as the account.
///
/// The helper is an app of its own: its items live in its own access group
/// (`keychainctl.program.git-credential-keychainctl`), whatever profile the environment names, so
/// no other program reads them unless a profile lists that group. It never prompts (git's
/// terminal is git's): with no key at hand it fails, saying why on standard error, and git goes on
/// as with no helper.
enum GitCredentialHelper {
    static let programName = "git-credential-keychainctl"

    /// The helper's command line as `--help` shows it, and the context its keychain is opened in.
    static let spec = CommandSpec(
        name: programName,
        abstract: "git's credential helper over the keychain: get, store and erase.",
        discussion: """
            Called by git, never by hand: 'git config --global credential.helper keychainctl' makes git run it. \
            Credentials are internet passwords in the access group keychainctl.program.git-credential-keychainctl.
            """,
        sections: [], operands: [("ACTION", "get, store or erase")])

    static func run(_ arguments: [String]) -> Int32 {
        guard let action = arguments.first, arguments.count == 1 else {
            StandardStreams.err("usage: \(programName) get|store|erase (git runs it: git config --global credential.helper keychainctl)\n")
            return ExitStatusTable.usage
        }
        if action == "-h" || action == "--help" {
            StandardStreams.out(HelpText.render(spec, program: KeychainProgram.spec))
            return 0
        }
        // An action the helper does not take is ignored, as the protocol asks.
        guard ["get", "store", "erase"].contains(action) else { return 0 }
        do {
            let call = try CredentialHelperCall(spec)
            let credential = try GitCredential(reading: call.input)
            switch action {
            case "get": try get(credential, call)
            case "store": try store(credential, call)
            default: try erase(credential, call)
            }
            return 0
        } catch let malformed as GitCredential.Malformed {
            StandardStreams.err("\(programName): git sent \(malformed.description); nothing was done.\n")
            return ExitStatusTable.usage
        } catch {
            return ErrorReporter.report(error, format: .text, program: programName)
        }
    }

    /// The attributes naming `credential`'s items: the server, protocol, port and path always (none
    /// given is none), the username when given (`storing`: required).
    static func request(_ credential: GitCredential, storing: Bool) -> ItemRequest? {
        guard let server = credential.server else { return nil }
        var words: [(code: String, value: String)] = [(Schema.server, AttributeValue.literal(server.name))]
        if let name = credential.protocolName {
            // The protocol's four-character code where it has one (https: htps), else its name.
            words.append(
                (
                    Schema.networkProtocol,
                    FourCharCode.names(for: Schema.networkProtocol).contains(name) ? name : AttributeValue.literal(name)
                ))
        }
        // A port or path git does not send is none: a credential for another port (or, with
        // credential.useHttpPath, another repository) is another credential.
        words.append((Schema.port, server.port.flatMap { $0.isEmpty ? nil : $0 } ?? "0"))
        words.append((Schema.path, AttributeValue.literal(credential.path ?? "")))
        if let username = credential.username {
            words.append((Schema.account, AttributeValue.literal(username)))
        } else if storing {
            return nil
        }
        return ItemRequest(itemClass: ItemClass.internetPassword.rawValue, words: words)
    }

    /// The state this helper gives git with a credential (when git takes state), which git hands
    /// back when it stores that credential: already in the keychain, so nothing is written.
    static let seenState = "keychainctl:seen=1"

    /// The lines the keychain keeps after the password, as git-credential-osxkeychain keeps them.
    private static let expiryLine = "\npassword_expiry_utc="
    private static let refreshTokenLine = "\noauth_refresh_token="

    private static func get(_ credential: GitCredential, _ call: CredentialHelperCall) throws {
        guard var request = request(credential, storing: false) else { return }
        request.limit = .value(.one)
        request.returns = .value([.attributes, .data])
        guard let found = try call.find(request, in: call.openKeychain()).first else { return }
        let username = found.item.attributes[Schema.account]?.stringValue ?? ""
        guard let secret = found.secret, !username.utf8.contains(0x0A), !username.utf8.contains(0) else {
            throw KeychainError(
                .decode, hint: "the stored credential's account holds a line break or NUL, which git's protocol cannot carry.")
        }
        let reply = SecretBytes(count: 0)
        try secret.withUnsafeBytes { data in
            // The password is the first line; after it, only the two attributes git wrote, each
            // checked again (digits; no NUL): no other line of the item ever reaches git.
            let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
            guard let password = lines.first, !password.contains(0) else {
                throw KeychainError(.decode, hint: "the stored password holds a NUL, which git's protocol cannot carry.")
            }
            reply.append(text: "username=\(username)\npassword=")
            reply.append(UnsafeRawBufferPointer(rebasing: password))
            for line in lines.dropFirst() {
                let text = UnsafeRawBufferPointer(rebasing: line)
                if let expiry = Self.value(of: text, after: expiryLine), GitCredential.isTimestamp(expiry) {
                    reply.append(text: expiryLine)
                    reply.append(expiry)
                } else if let token = Self.value(of: text, after: refreshTokenLine), !token.contains(0) {
                    reply.append(text: refreshTokenLine)
                    reply.append(token)
                }
            }
            reply.append(text: "\n")
        }
        if credential.capabilities.contains("state") { reply.append(text: "capability[]=state\nstate[]=\(seenState)\n") }
        StandardStreams.out(secret: reply)
    }

    /// The bytes of `line` after `prefix` (given with its leading newline), or nil.
    private static func value(of line: UnsafeRawBufferPointer, after prefix: String) -> UnsafeRawBufferPointer? {
        let key = prefix.utf8.dropFirst()
        guard line.starts(with: key) else { return nil }
        return UnsafeRawBufferPointer(rebasing: line[(line.startIndex + key.count)...])
    }

    private static func store(_ credential: GitCredential, _ call: CredentialHelperCall) throws {
        // What this helper gave git, reported as having worked: it is in the keychain already.
        if credential.states.contains(seenState) { return }
        guard let request = request(credential, storing: true), let password = credential.password else { return }
        let data = SecretBytes(count: 0)
        password.withUnsafeBytes { data.append($0) }
        if let expiry = credential.passwordExpiry { data.append(text: expiryLine + expiry) }
        if let token = credential.oauthRefreshToken {
            data.append(text: refreshTokenLine)
            token.withUnsafeBytes { data.append($0) }
        }
        _ = try call.openKeychain().add(request, secret: data, caller: call.caller, updateExisting: true)
    }

    /// Erases the matching credentials; when git names the password it rejected, only those still
    /// holding it (another process may have stored a newer one meanwhile).
    private static func erase(_ credential: GitCredential, _ call: CredentialHelperCall) throws {
        guard var request = request(credential, storing: false) else { return }
        request.limit = .value(.all)
        request.returns = .value([.attributes, .data, .persistentRef])
        let keychain = try call.openKeychain()
        try keychain.inOneWrite {
            let matches = try call.find(request, in: keychain)
            // The password is the item's first line; the attributes git gave with it follow.
            try call.delete(
                matches.filter { found in credential.password.map { found.secret?.equals($0, before: 0x0A) == true } ?? true },
                from: keychain)
        }
    }
}
