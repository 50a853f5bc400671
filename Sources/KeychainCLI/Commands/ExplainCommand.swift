import CommandLineKit
import KeychainCore
import TextEscaping

/// `keychainctl explain`: the status a call would return for this profile, platform and device
/// state, and why each item that nearly matches is or is not included.
struct ExplainCommand: Subcommand {
    static let name = "explain"

    static let spec = CommandSpec(
        name: name,
        abstract: "Say what a find, add, update or delete would return, and why each nearly matching item is (not) included.",
        discussion: """
            Compares every item of the keychain with the query one dimension at a time, in securityd's order: \
            class, each attribute given, access group, sync, tombstone, then the lock state. Verdicts: VISIBLE, \
            HIDDEN (an implicit filter: group, sync, tombstone), NEAR MISS (the query's own class or attributes), \
            BLOCKED (fails the whole call: a locked class, an explicit unentitled group, an add's twin), \
            READ-ONLY (com.apple.token on a write). Nothing is written and no secret is read. Exit 0 when the \
            explanation was produced; --strict exits with the predicted status instead.
            """,
        sections: [
            (
                "options",
                [
                    Self.operation.spec, Self.limit.spec, Self.candidates.spec, Self.strict.spec, Self.teamChange.spec,
                    NamedPath.appOption.spec,
                ]
            ),
            ("find's output options, taken so that a find's command line explains as written (no secret is read)", findsOutput),
            ItemOptions.section,
            GlobalOptions.section,
        ],
        examples: [
            Example(
                "keychainctl explain --profile share-extension.plist -s com.example.api -a session",
                "Why the share extension does not find the app's item, item by item."
            ),
            Example(
                "keychainctl explain --profile App.ipa --target com.example.app.widget -s com.example.api -a session -w",
                "The same for a target of a built app, with a failing find's words pasted after explain."
            ),
        ])

    /// find's options that choose what is printed, not what matches: accepted and left unused.
    static let findsOutput = [
        FindCommand.returns.spec, FindCommand.passwordOnly.spec, FindCommand.allowPrivateKeyExport.spec, DamagedRows.option.spec,
    ]

    static let operation = Option.choice(
        "operation", nil, "find|add|update|delete", "The call to explain (default find).", Explanation.Operation.init(rawValue:))
    static let limit = Option.text(
        "limit", nil, "one|all|n", suggestions: .limits,
        "The call's match limit, as find takes it (default: one for find, all otherwise).")
    static let candidates = Option<Int>(
        "candidates", nil, "n", expected: "a number from 1 to 10000", "List at most this many items (default 20); the rest are counted."
    ) { Int($0).flatMap { (1...10_000).contains($0) ? $0 : nil } }
    static let strict = Flag("strict", "Exit with the predicted status's exit status (0 when the call would succeed).")
    static let teamChange = TeamChangeOption.option(
        "Explain the call as a build of the new team would make it, and say which groups' items it loses.")

    let context: CommandContext

    func validate() throws(UsageError) {
        if context[NamedPath.appOption] != nil, context[Self.teamChange] != nil {
            throw UsageError("--team-change explains one target: give it with --profile, not --app.")
        }
    }

    /// The call explained: the operation, its request, how many candidates a report lists.
    private func call() -> (operation: Explanation.Operation, request: ItemRequest, candidates: Int) {
        let request = ItemOptions(context.arguments).request(limit: context[Self.limit])
        return (context[Self.operation] ?? .find, request, context[Self.candidates] ?? 20)
    }

    func run() throws {
        if let app = context[NamedPath.appOption] { return try runApp(app) }
        let (operation, request, candidates) = call()
        let profile = try context.loadProfile()
        let keychain = try context.openKeychain()
        var caller = Caller(profile)
        var report: TeamChangeReport? = nil
        if let teamChange = context[Self.teamChange] {
            let assessed = try keychain.assess(profile, movingTo: teamChange)
            caller = Caller(name: "\(profile.path) signed by \(teamChange)", groups: assessed.moved)
            report = assessed
        }
        let explanation = try keychain.explain(operation, request, caller: caller, limit: candidates)
        let renderer = ExplanationRenderer(
            explanation: explanation, profile: profile, groups: caller.groups, teamChange: report, request: request, device: keychain.device
        )
        switch context.resolvedFormat {
        case .json: StandardStreams.out(JSON.render(renderer.json) + "\n")
        case .text: StandardStreams.out(renderer.text)
        }
        if context[Self.strict], let predicted = explanation.predicted { throw SilentExit(code: predicted.status.exitStatus) }
    }

    /// `--app`: the call explained for each target of the built app, one block (or JSON object,
    /// with its `target`) per target; `--strict` exits with the first failure predicted.
    private func runApp(_ app: String) throws {
        let targets = try NamedPath.app(app)
        let profiles = try targets.map { try context.loadProfile(path: $0.path, provisioning: nil) }
        let keychain = try context.openKeychain()
        let (operation, request, candidates) = call()
        var failure: KeychainError?
        var texts: [String] = []
        var objects: [JSON.Value] = []
        for (target, profile) in zip(targets, profiles) {
            let caller = Caller(name: target.name, groups: profile.accessGroups)
            let explanation = try keychain.explain(operation, request, caller: caller, limit: candidates)
            if failure == nil { failure = explanation.predicted }
            let renderer = ExplanationRenderer(
                explanation: explanation, profile: profile, groups: caller.groups, teamChange: nil, request: request,
                device: keychain.device)
            texts.append("target: \(target.name.terminalSafe)\n" + renderer.text)
            var object = renderer.json
            if case .object(var members) = object {
                members["target"] = .string(target.name)
                object = .object(members)
            }
            objects.append(object)
        }
        switch context.resolvedFormat {
        case .json: StandardStreams.out(JSON.render(.array(objects)) + "\n")
        case .text: StandardStreams.out(texts.joined(separator: "\n"))
        }
        if context[Self.strict], let failure { throw SilentExit(code: failure.status.exitStatus) }
    }
}
