import CommandLineKit
import KeychainCore
import TextEscaping

/// The generic password a script names by service and account (`set`, `get`, `rm`): NAME is the
/// service, ACCOUNT the account (any account when left out, except for `set`, which stores an
/// empty one, as SecItemAdd defaults it). For `get` and `rm` items of every sync state count, so
/// an item that came from another device is found without `--sync any`; `set` takes one sync state.
struct NamedItem {
    static let group = Option.text(
        "group", "g", "group", "Only this access group (default: every group the profile reads; set: the default group).")
    static let operands: [(name: String, help: String)] = [
        ("NAME", "The service (svce) the secret is stored under."),
        ("ACCOUNT", "The account (acct); leave it out when the service has one account."),
    ]

    let service: String
    let account: String?
    let group: String?
    /// The sync state the item must have: any (get, rm), or yes or no (set).
    let syncState: SyncFilter

    /// The item `arguments` names (NAME is a required operand of each command that names one).
    init(_ arguments: ParsedArguments, syncState: SyncFilter = .any) {
        self.syncState = syncState
        group = arguments[Self.group]
        service = arguments.operands.first ?? ""
        account = arguments.operands.dropFirst().first
    }

    /// The attributes selecting the item (`storing`: with an empty account when none is named, as
    /// SecItemAdd defaults it).
    func attributes(storing: Bool) -> [(code: String, value: String)] {
        // A name and an account are taken literally, whatever they begin with.
        var attributes: [(code: String, value: String)] = [(Schema.service, AttributeValue.literal(service))]
        if let account {
            attributes.append((Schema.account, AttributeValue.literal(account)))
        } else if storing {
            attributes.append((Schema.account, ""))
        }
        if let group { attributes.append((Schema.accessGroup, group)) }
        return attributes
    }

    /// The query selecting the item: a generic password of this sync state.
    func query(_ returns: ReturnOptions, limit: MatchLimit, sync: SyncFilter? = nil) -> ItemRequest {
        ItemRequest(
            itemClass: .genericPassword, words: attributes(storing: false), limit: limit, returns: returns,
            sync: sync ?? syncState)
    }

    /// A synchronizable item of this name, when there is one.
    func synchronizable(_ keychain: Keychain, caller: Caller) throws -> Item? {
        do {
            return try keychain.find(query(.attributes, limit: .one, sync: .yes), caller: caller, skipDamaged: true).items.first?.item
        } catch let error as KeychainError
            where error.status == .itemNotFound
        { return nil }
    }

    /// NAME and ACCOUNT as a command line takes them, quoted for a shell when they need it.
    var words: String { ([service] + (account.map { [$0] } ?? [])).map(\.shellQuoted).joined(separator: " ") }

    /// How the item is named in messages.
    var described: String {
        "service '\(service.terminalSafe)'" + (account.map { ", account '\($0.terminalSafe)'" } ?? "")
            + (group.map { " in group \($0.terminalSafe)" } ?? "")
    }

    /// The one item the name selects, with its data when `withData`: errSecItemNotFound for none,
    /// errSecParam naming them for several (two are asked for: the second only says the name is
    /// ambiguous), and a damaged row among the matches refuses the call (it may be the one meant).
    func theOne(_ keychain: Keychain, caller: Caller, command: String, withData: Bool) throws -> Keychain.FoundItem {
        var found: [Keychain.FoundItem] = []
        let result: Keychain.FindSummary
        do {
            result = try keychain.find(query(withData ? .data : .attributes, limit: .count(2)), caller: caller) { _, match in
                found.append(match)
            }
        } catch let error as KeychainError where error.status == .itemNotFound {
            let groups = group.map { [$0] } ?? caller.groups.readable
            throw KeychainError(
                .itemNotFound,
                hint:
                    "no secret for \(described) in \(groups.map(\.terminalSafe).joined(separator: ", ")); 'keychainctl ls' lists the stored ones."
            )
        } catch let error as KeychainError where error.status == .missingEntitlement {
            throw KeychainError(.missingEntitlement, hint: error.hint + " 'keychainctl groups' shows the profile in force and its groups.")
        }
        if found.count > 1 { throw try ambiguity(keychain, caller: caller, command: command) }
        try DamagedRows.finish(result.damaged, skip: false)
        return found[0]
    }

    /// errSecParam for a name that matches several items, naming each by account and group, never
    /// picking one.
    private func ambiguity(_ keychain: Keychain, caller: Caller, command: String) throws -> KeychainError {
        let all = try keychain.find(query(.attributes, limit: .all), caller: caller, skipDamaged: true)
        let names = all.items.map(\.item.accountAndGroup)
        return KeychainError(
            .param,
            hint: "\(names.count) items match \(described): \(names.joined(separator: ", ")); "
                + "name one: keychainctl \(command) NAME ACCOUNT (and -g GROUP when one account is in two groups).")
    }
}
