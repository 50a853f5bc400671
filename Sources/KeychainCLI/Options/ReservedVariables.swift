/// Variable names an item's attribute may not produce (`exec --env-from`, `export --format
/// dotenv|shell|github-env`): each changes how a shell, the dynamic loader, an interpreter or a
/// tool loads or runs code, or where a CI runner reads its next steps. Whoever can write one item
/// into a group a query matches (another device holding the account key, an import file's author,
/// another app sharing the group) would otherwise run code in the step that holds the secrets.
/// A name the user writes with `--env NAME=…` is the user's choice and is not checked. This list is
/// the second line: the first is that items only make names the user allowed (`VariableNaming`).
enum ReservedVariables {
    /// Reserved names, compared upper-cased (npm reads `npm_config_*` as well as `NPM_CONFIG_*`).
    static let names: Set<String> = [
        // Shells
        "PATH", "IFS", "ENV", "BASH_ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND", "CDPATH", "GLOBIGNORE", "SHELL",
        "HOME", "ZDOTDIR", "XDG_CONFIG_HOME", "EDITOR", "VISUAL", "PAGER", "BROWSER", "SSH_ASKPASS", "SUDO_ASKPASS",
        "MAKEFLAGS", "MAKEFILES", "TMPDIR",
        // The C library and the dynamic loader
        "GCONV_PATH", "GLIBC_TUNABLES", "LOCPATH", "NLSPATH", "HOSTALIASES", "RES_OPTIONS",
        // Interpreters and runtimes
        "NODE_OPTIONS", "NODE_PATH", "NODE_REPL_EXTERNAL_MODULE", "PERLLIB", "RUBYOPT", "RUBYLIB", "GEM_HOME", "GEM_PATH",
        "BUNDLE_GEMFILE", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH", "MAVEN_OPTS", "GRADLE_OPTS",
        "DOTNET_STARTUP_HOOKS", "CORECLR_PROFILER_PATH", "LUA_PATH", "LUA_CPATH", "LUA_INIT", "PHPRC", "PHP_INI_SCAN_DIR",
        "TCLLIBPATH", "RUSTC_WRAPPER",
        // Compilers and build tools
        "CC", "CXX", "CPP", "LD", "AR", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS",
        // Where tools fetch from, whom they trust, and what they run to get credentials
        "KUBECONFIG", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "GNUPGHOME", "CURL_HOME", "NETRC", "WGETRC",
        "SSLKEYLOGFILE",
        // git
        "GIT_SSH", "GIT_SSH_COMMAND", "GIT_EXEC_PATH", "GIT_ASKPASS", "GIT_EDITOR", "GIT_PAGER", "GIT_EXTERNAL_DIFF",
        "GIT_PROXY_COMMAND", "GIT_TEMPLATE_DIR", "GIT_DIR", "GIT_WORK_TREE",
        // CI runners' command files
        "GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STATE", "GITHUB_STEP_SUMMARY",
    ]

    /// Reserved prefixes: whole families of the above.
    static let prefixes: [String] = [
        "LD_", "DYLD_", "BASH_", "PYTHON", "PERL5", "NPM_CONFIG_", "GIT_CONFIG", "GIT_SSL_", "CARGO_", "KEYCHAINCTL_", "LESS",
        "OPENSSL_", "SSL_CERT_", "PIP_", "UV_", "DOCKER_", "TERMINFO", "NODE_TLS_", "CGO_",
    ]

    /// Reserved suffixes: CA bundles (`CURL_CA_BUNDLE`, `REQUESTS_CA_BUNDLE`, `NODE_EXTRA_CA_CERTS`)
    /// and proxies (`HTTPS_PROXY`, `http_proxy`, `ALL_PROXY`), which put a man in the middle.
    static let suffixes: [String] = ["_CA_BUNDLE", "_CA_CERTS", "_PROXY"]

    /// Whether `name` is reserved. Go's settings (`GOFLAGS`, `GOPROXY`, `GOOS`, …) are `GO` and
    /// letters or digits, no underscore, so that `GOOGLE_API_KEY` stays a name an item may give.
    static func contains(_ name: String) -> Bool {
        let upper = VariableNaming.asciiUppercased(name)
        return names.contains(upper) || prefixes.contains { upper.hasPrefix($0) } || suffixes.contains { upper.hasSuffix($0) }
            || (upper.hasPrefix("GO") && !upper.utf8.contains(UInt8(ascii: "_")))
    }

    /// Why the item `reference` may not name the variable `name` (the start of a warning or an
    /// error); `nil` when the name is not reserved.
    static func refusal(_ name: String, reference: String) -> String? {
        contains(name) ? "item ref=\(reference) would set \(name), which changes how programs load or run code" : nil
    }
}
