import CommandLineKit

/// keychainctl as its pages describe it (root help, the man page, the reference): what it is, its
/// commands by group, the global options by theme, the variables no option carries, its default
/// files and every exit status. Built only when a page is asked for.
enum KeychainProgram {
    static var spec: ProgramSpec {
        ProgramSpec(
            name: KeychainCommandLine.program,
            title: "Apple's data-protection keychain semantics on an encrypted SQLite file",
            overview: """
                Each invocation acts as one app or extension whose entitlements come from --profile (else the \
                user's default profile, else the built-in one): its access groups decide what it may read and write, \
                as SecItemAdd, SecItemCopyMatching, SecItemUpdate and SecItemDelete decide on iOS and macOS. Secrets \
                are read from standard input, files or descriptors, never from the command line unless the user insists.
                """,
            examples: [
                Example("keychainctl init", "the default keychain, and its key file"),
                Example("echo 'tok' | keychainctl set api-token", "'keychainctl get api-token' prints it"),
                Example("keychainctl exec --env TOKEN=api-token -- ./deploy.sh", "one secret for one command, masked"),
            ],
            groups: [
                ("everyday secrets", ["init", "set", "get", "ls", "rm", "backup"]),
                ("CI and scripts", ["unlock", "lock", "exec", "import", "export", "rekey"]),
                ("SecItem calls", ["add", "find", "update", "delete", "migrate-group"]),
                ("sync between devices", ["cloud", "sync"]),
                ("debugging access groups", ["groups", "profile", "explain", "matrix", "lint", "device"]),
                ("maintenance and reference", ["verify", "error", "completion", "manpage"]),
            ],
            globalOptions: GlobalOptions.themedSpecs,
            globalOptionsNote: """
                Every command accepts these (`lint` and `matrix` a part of them), after its name or before it \
                (`keychainctl --keychain k.db get api`), by theme.
                """,
            everydayGlobalOptions: GlobalOptions.everyday,
            briefGlobalNote: "(and the options that act as an app: --profile and the rest, as 'keychainctl find --help' lists them)",
            fullDescriptionNote: "The whole description, and every exit status: man keychainctl (or keychainctl manpage | man -l -).",
            environment: [
                (
                    CommandContext.keyVariable,
                    "The keychain key itself, base64. Read once and wiped from the process; never passed to exec's command."
                ),
                (
                    CommandContext.passphraseVariable,
                    "The keychain passphrase itself. Read once and wiped from the process; never passed to exec's command."
                ),
                ("XDG_DATA_HOME", "Where the default keychain lives (default $HOME/.local/share)."),
                ("XDG_CONFIG_HOME", "Where the user's default profile lives (default $HOME/.config)."),
            ],
            files: [
                (
                    "$XDG_DATA_HOME/keychainctl/keychain.db",
                    """
                    The keychain used when neither `--keychain` nor KEYCHAINCTL_KEYCHAIN names one \
                    ($HOME/.local/share/keychainctl/keychain.db when XDG_DATA_HOME is unset). `keychainctl init` \
                    creates it with mode 0600, in folders of mode 0700.
                    """
                ),
                (
                    "$XDG_CONFIG_HOME/keychainctl/profile.plist",
                    """
                    The profile used when neither `--profile` nor KEYCHAINCTL_PROFILE names one \
                    ($HOME/.config/keychainctl/profile.plist when XDG_CONFIG_HOME is unset); without it, the \
                    built-in profile `keychainctl profile show` prints.
                    """
                ),
                (
                    GitCredentialHelper.programName,
                    """
                    A link to keychainctl beside it (the tarball, the .deb and `make install` make it): called by \
                    this name, keychainctl is git's credential helper (get, store, erase), which \
                    `git config --global credential.helper keychainctl` turns on. It never prompts; its \
                    credentials are internet passwords in the access group keychainctl.program.\(GitCredentialHelper.programName).
                    """
                ),
                (
                    DockerCredentialHelper.programName,
                    """
                    The same for Docker: a credential helper (store, get, erase, list) that \
                    `"credsStore": "keychainctl"` in ~/.docker/config.json turns on, its logins internet passwords \
                    in the access group keychainctl.program.\(DockerCredentialHelper.programName).
                    """
                ),
            ],
            exitStatuses: ExitStatusTable.rows.map { row in
                ProgramSpec.ExitStatus(
                    exit: row.exit, summary: row.status.map { "\($0.name) (\($0.rawValue))" } ?? row.summary,
                    meaning: row.status.map { "\($0.name) (\($0.rawValue)): \(row.meaning)" } ?? row.meaning)
            },
            exitStatusIntro: """
                Each keychain status exits with its low byte, as macOS `security` does; keychainctl's own \
                failures have their own statuses. `keychainctl error STATUS` explains one. On stderr a failure \
                says first what happened (`keychainctl: no secret for service 'api' in keychainctl.default; …`), \
                then, for a keychain status, Apple's name, number and sentence in parentheses \
                (`(errSecItemNotFound -25300: The specified item could not be found in the keychain.)`); with \
                `--format json` it is one object, `{"error": {"name", "status", "message", "hint", "exit"}}`.
                """,
            rootFooter: """
                'keychainctl error STATUS' explains one, with what usually causes it.

                  -h, --help        Show help (also 'keychainctl <subcommand> --help').
                  --version         Show the version, its commit and the libraries inside (--format json too).

                """,
            seeAlso: "`security`(1) on macOS; 'keychainctl error --list'; README.md and docs/ of the keychainctl source.")
    }
}
