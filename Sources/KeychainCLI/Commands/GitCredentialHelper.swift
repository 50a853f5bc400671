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

    private static func get(_ credential: GitCredential, _ call: CredentialHelperCall) throws {
        guard var request = request(credential, storing: false) else { return }
        request.limit = .value(.one)
        request.returns = .value([.attributes, .data])
        guard let found = try call.find(request, in: call.openKeychain()).first else { return }
        let username = found.item.attributes[Schema.account]?.stringValue ?? ""
        guard let secret = found.secret, !username.utf8.contains(0x0A), !secret.withUnsafeBytes({ $0.contains(0x0A) || $0.contains(0) })
        else {
            throw KeychainError(.decode, hint: "the stored credential holds a line break or NUL, which git's protocol cannot carry.")
        }
        StandardStreams.out("username=\(username)\npassword=")
        StandardStreams.out(secret: secret)
        StandardStreams.out("\n")
    }

    private static func store(_ credential: GitCredential, _ call: CredentialHelperCall) throws {
        guard let request = request(credential, storing: true), let password = credential.password else { return }
        _ = try call.openKeychain().add(request, secret: password, caller: call.caller, updateExisting: true)
    }

    /// Erases the matching credentials; when git names the password it rejected, only those still
    /// holding it (another process may have stored a newer one meanwhile).
    private static func erase(_ credential: GitCredential, _ call: CredentialHelperCall) throws {
        guard var request = request(credential, storing: false) else { return }
        request.limit = .value(.all)
        request.returns = .value([.attributes, .data, .persistentRef])
        let keychain = try call.openKeychain()
        let matches = try call.find(request, in: keychain)
        try call.delete(matches.filter { found in credential.password.map { found.secret?.equals($0) == true } ?? true }, from: keychain)
    }
}
