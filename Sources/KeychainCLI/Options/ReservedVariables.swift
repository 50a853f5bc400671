/// Variable names an item's attribute may not produce (`exec --env-from`, `export --format
/// dotenv|shell|github-env`): each changes how a shell, the dynamic loader, an interpreter or a
/// tool loads or runs code, or where a CI runner reads its next steps. Whoever can write one item
/// into a group a query matches (another device holding the account key, an import file's author,
/// another app sharing the group) would otherwise run code in the step that holds the secrets.
/// A name the user writes with `--env NAME=…` is the user's choice and is not checked. This list is
/// the second line: the first is that items only make names the user allowed (`VariableNaming`).
enum ReservedVariables {
    /// Reserved names, compared upper-cased (npm reads `npm_config_*` as well as `NPM_CONFIG_*`),
    /// besides the families below (`NODE_OPTIONS` is a `…_OPTIONS`, `GEM_PATH` a `…_PATH`): a name
    /// one of them covers is not listed again.
    static let names: Set<String> = [
        // Shells
        "PATH", "IFS", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND", "CDPATH", "GLOBIGNORE", "SHELL",
        "HOME", "ZDOTDIR", "EDITOR", "VISUAL", "BROWSER", "SSH_ASKPASS", "SUDO_ASKPASS",
        "MAKEFILES", "TMPDIR", "TMP", "TEMP", "INPUTRC", "HISTFILE", "PS0", "PS1", "PS2", "PS3", "TZ",
        "TEXTDOMAINDIR", "TEXTDOMAIN", "PWD", "OLDPWD",
        // The C library and the dynamic loader
        "GLIBC_TUNABLES", "LOCPATH", "NLSPATH", "HOSTALIASES", "LOCALDOMAIN",
        // Interpreters and runtimes
        "NODE_REPL_EXTERNAL_MODULE", "PERLLIB", "RUBYOPT", "RUBYLIB",
        "BUNDLE_GEMFILE", "CLASSPATH",
        "DOTNET_STARTUP_HOOKS", "LUA_CPATH", "LUA_INIT", "PHPRC",
        "TCLLIBPATH", "RUSTC", "RUSTDOC", "HELM_PLUGINS",
        // Compilers and build tools
        "CC", "CXX", "CPP", "LD", "AR",
        // Where tools fetch from, whom they trust, and what they run to get credentials
        "KUBECONFIG", "GNUPGHOME", "NETRC", "WGETRC",
        "SSLKEYLOGFILE",
        // CI runners' command files
        "GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_STATE", "GITHUB_STEP_SUMMARY",
    ]

    /// Reserved prefixes: whole families of the above, Terraform's inputs (`TF_VAR_*`: a deployment's
    /// admin key or database password, set by whoever wrote the item), the CI runners' own settings (`ACTIONS_*`,
    /// `RUNNER_*`: `export --format github-env` reaches every later step), the session bus, XDG's
    /// folders, and tools' families that choose where they fetch from or what they run.
    static let prefixes: [String] = [
        "LD_", "DYLD_", "BASH_", "PYTHON", "PERL5", "NPM_CONFIG_", "CARGO_", "KEYCHAINCTL_", "LESS", "OPENSSL_", "SSL_CERT_", "PIP_",
        "UV_", "DOCKER_", "TERMINFO", "NODE_TLS_", "CGO_", "ACTIONS_", "RUNNER_", "DBUS_", "XDG_", "RUSTUP_", "TF_CLI_", "COREPACK_",
        "CCACHE_", "RSYNC_", "CMAKE_", "TF_VAR_",
    ]

    /// Reserved endings: CA bundles (`CURL_CA_BUNDLE`, `NODE_EXTRA_CA_CERTS`) and proxies
    /// (`HTTPS_PROXY`), which put a man in the middle; pagers and editors (`AWS_PAGER`, `GH_PAGER`),
    /// which tools run; where a tool sends its requests and credentials (`AWS_ENDPOINT_URL`,
    /// `VAULT_ADDR`, `SONAR_HOST_URL`, `RUSTUP_DIST_SERVER`) or into which account and tenant it
    /// deploys (`ARM_SUBSCRIPTION_ID`, `AZURE_TENANT_ID`); a credentials file's path
    /// (`GOOGLE_APPLICATION_CREDENTIALS`, whose file can name a program); options, arguments and flags a tool
    /// or its runtime adds (`JAVA_OPTS`, `MAVEN_ARGS`, `RUSTFLAGS`, `GNUMAKEFLAGS`); commands run in
    /// a tool's place (`CCACHE_PREFIX`, `…_LAUNCHER`, `…_WRAPPER`, `RSYNC_RSH`, `…_PROG`); and the
    /// folders and files it reads (`JAVA_HOME`, `…_DIR`, `…_PATH`, `TF_CLI_CONFIG_FILE`).
    static let suffixes: [String] = [
        "_CA_BUNDLE", "_CA_CERTS", "_PROXY", "PAGER", "_EDITOR", "_URL", "_URI", "_HOST", "_ADDR", "_ADDRESS", "_SERVER", "_OPTS",
        "_OPTIONS", "_ARGS", "FLAGS", "_PREFIX", "_LAUNCHER", "_WRAPPER", "_RSH", "_PROG", "_HOME", "_DIR", "_DIRS", "_PATH", "_FILE",
        "_SOCK", "_SOCKET", "_APPLICATION_CREDENTIALS", "_SUBSCRIPTION_ID", "_TENANT_ID",
    ]

    /// Reserved wherever they stand in a name: a tool's endpoints, registries and mirrors
    /// (`AWS_ENDPOINT_URL_S3`, `YARN_NPM_REGISTRY_SERVER`, `BUNDLE_MIRROR__ALL`) and its configuration.
    static let infixes: [String] = ["_ENDPOINT", "_REGISTRY", "_MIRROR", "_CONFIG"]

    /// Whether `name` is reserved. Go's settings (`GOFLAGS`, `GOPROXY`, `GOOS`, …) are `GO` and
    /// letters or digits, no underscore, so that `GOOGLE_API_KEY` stays a name an item may give.
    /// git's variables (`GIT_*`) all change what git runs or reads, but a credential-shaped one
    /// (`GIT_TOKEN`, which git never reads) is a tool's own.
    static func contains(_ name: String) -> Bool {
        let upper = VariableNaming.asciiUppercased(name)
        return names.contains(upper) || inFamily(upper)
    }

    /// Whether `upper` (upper-cased) belongs to a reserved family: a prefix, an ending, an infix,
    /// Go's settings or git's.
    static func inFamily(_ upper: String) -> Bool {
        prefixes.contains { upper.hasPrefix($0) } || suffixes.contains { upper.hasSuffix($0) } || infixes.contains { upper.contains($0) }
            || (upper.hasPrefix("GO") && !upper.utf8.contains(UInt8(ascii: "_")))
            || (upper.hasPrefix("GIT_") && !VariableNaming.isCredentialShaped(upper))
    }

    /// Why the item `reference` may not name the variable `name` (the start of a warning or an
    /// error); `nil` when the name is not reserved.
    static func refusal(_ name: String, reference: String) -> String? {
        contains(name) ? "item ref=\(reference) would set \(name), which changes how programs load or run code" : nil
    }
}
