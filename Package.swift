// swift-tools-version:6.2
import Foundation
import PackageDescription

// `make install-sdk` builds the Security module's shared library in a build folder of its own with
// KEYCHAINCTL_SDK set: optimised, and with SQLite, libsodium, OpenSSL and minizip linked as shared
// libraries (Debian's static archives are not position-independent, so a shared library cannot
// hold them).
let sharedSDK = ProcessInfo.processInfo.environment["KEYCHAINCTL_SDK"] != nil

// How the engine links its C libraries. Release binaries link them statically (and `make release`
// links the whole executable statically): every call is a new process, and the dynamic loader's
// relocations were a third of a find's instructions (CHANGELOG.md). Debug builds, and the SDK's,
// link the shared ones.
let engineLibraries = ["sqlite3", "sodium", "crypto", "minizip", "z"]
let engineLinking: [LinkerSetting] =
    sharedSDK
    ? engineLibraries.map { .linkedLibrary($0) }
    : engineLibraries.map { .linkedLibrary($0, .when(configuration: .debug)) } + [
        .unsafeFlags(engineLibraries.flatMap { ["-Xlinker", "-l:lib\($0).a"] } + ["-Xlinker", "-lm"], .when(configuration: .release))
    ]

let package = Package(
    name: "keychainctl",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "keychainctl", targets: ["keychainctl"]),
        .executable(name: "keychainctl-bench", targets: ["keychainctl-bench"]),
        // Apple's SecItem API over the same engine, for Swift code on Linux (docs/LIBRARY.md); on
        // Apple platforms a dependent uses Apple's own Security framework instead. The module is
        // built with library evolution: its interface imports Foundation alone (the engine is an
        // internal or package import), so an installed copy needs none of the engine's modules.
        .library(name: "Security", targets: ["Security"]),
        .library(name: "SecurityTesting", targets: ["SecurityTesting"]),
        .library(name: "LocalAuthentication", targets: ["LocalAuthentication"]),
        // The same modules (and LocalAuthentication and SecurityTesting) as one shared library with
        // the engine inside, for a package that cannot depend on this one (`make install-sdk`,
        // docs/LIBRARY.md).
        .library(name: "KeychainSecurity", type: .dynamic, targets: ["Security", "LocalAuthentication", "SecurityTesting"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CSodium",
            providers: [.apt(["libsodium-dev"])]),
        // OpenSSL's libcrypto: CMS (signed provisioning profiles), well kept and C, so it adds no
        // Swift metadata for every call to scan (swift-asn1 pulls in FoundationEssentials: +7% on a find).
        .systemLibrary(
            name: "CCrypto",
            providers: [.apt(["libssl-dev"])]),
        // zlib's minizip: an .ipa read in place (a zip of the app), C like OpenSSL for the same reason.
        .systemLibrary(
            name: "CZip",
            providers: [.apt(["libminizip-dev"])]),
        // prctl and setrlimit through a C shim (prctl is variadic): no core dumps, no ptrace.
        .systemLibrary(name: "CProcess"),
        // The kernel keyring (add_key, keyctl) through raw system calls: `unlock`'s key cache.
        .systemLibrary(name: "CKeyring"),
        // syncfs (declared only under _GNU_SOURCE): a sync's new cloud records made durable at once.
        .systemLibrary(name: "CFileSync"),
        // Echo off for no-echo prompts, restored by signal handlers (which Swift cannot write).
        .target(name: "CTerminal"),
        // The commit `make release` builds from (KEYCHAINCTL_COMMIT), for --version.
        // The commit and the release number (VERSION, the one place it is written: the C file
        // includes it, Scripts/dist.sh and Scripts/gitlab-template.sh read it).
        .target(name: "CBuildInfo", exclude: ["VERSION"]),
        // Starting exec's command and git: fork, a fresh session keyring, descriptors closed and the
        // keyring calls denied by seccomp before execve (posix_spawn can do none of it).
        .target(name: "CSpawn"),
        // Text made safe where it is shown: on a terminal, as a shell word, in roff, XML and Markdown.
        // Below the engine and the command-line framework alike, so both escape a string one way.
        .target(name: "TextEscaping"),
        // The platform's own calls (the kernel keyring, starting a program isolated, the terminal's
        // echo, core dumps and ptrace, syncfs, errno's text, the executable's name), each behind a
        // small Swift type: the one module that imports the C shims for them, so a port to another
        // system changes it alone.
        .target(name: "KeychainPlatform", dependencies: ["CKeyring", "CSpawn", "CTerminal", "CProcess", "CFileSync"]),
        // The engine in three storeys, each a module, so the compiler keeps their dependencies
        // pointing down (CONTRIBUTING.md's map; ArchitectureTests keeps the rooms inside each). A
        // generic the foundation offers the others is @inlinable, or they cannot specialise it:
        // release builds' cross-module optimisation did not (measured with callgrind, CHANGELOG.md).
        // The foundation: support, errors, the model, cryptography, the store, queries, the key cache.
        .target(
            name: "KeychainFoundation",
            dependencies: ["KeychainPlatform", "TextEscaping", "CSQLite", "CSodium", "CCrypto", "CZip"],
            linkerSettings: engineLinking),
        // Apple's formats: entitlements and provisioning profiles, what Xcode built, certificates and keys.
        .target(name: "KeychainFormats", dependencies: ["KeychainFoundation", "KeychainPlatform", "TextEscaping", "CCrypto", "CZip"]),
        // The SecItem policy and the features over it. It re-exports the two modules under it; what
        // depends on it names them too, so that a change of their layout rebuilds it (SwiftPM does
        // not follow a re-export: a stale test binary crashed on a grown ItemRequest).
        .target(
            name: "KeychainCore", dependencies: ["KeychainFoundation", "KeychainFormats", "KeychainPlatform", "TextEscaping", "CSQLite"]),
        // The command-line framework: option and command specs, parsing, help, the man page, the
        // reference and completion scripts. It imports nothing of the keychain (a program describes
        // itself to it with a ProgramSpec), so the compiler keeps it apart; a generic it offers is
        // @inlinable, as the engine's are.
        .target(name: "CommandLineKit", dependencies: ["TextEscaping"]),
        .target(
            name: "KeychainCLI",
            dependencies: [
                "CommandLineKit", "KeychainCore", "KeychainFormats", "KeychainFoundation", "KeychainPlatform", "TextEscaping", "CBuildInfo",
            ]),
        .executableTarget(name: "keychainctl", dependencies: ["KeychainCLI"]),
        // `import Security` on Linux: SecItem's functions, constants, statuses and CF names, with full
        // Foundation (app code bridges `[String: Any]` to `CFDictionary`). The command never links it.
        .target(
            name: "Security", dependencies: ["KeychainCore", "KeychainFormats", "KeychainFoundation", "TextEscaping"],
            swiftSettings: [.unsafeFlags(["-enable-library-evolution", "-emit-module-interface"])]),
        // LAContext over the simulated device the Security library's keychain keeps, honoured by
        // SecItem through kSecUseAuthenticationContext.
        .target(
            name: "LocalAuthentication", dependencies: ["Security", "KeychainCore"],
            swiftSettings: [.unsafeFlags(["-enable-library-evolution", "-emit-module-interface"])]),
        // Pointing the library at a keychain, a profile and a device state from a test, without variables.
        .target(
            name: "SecurityTesting",
            dependencies: ["Security", "KeychainCore", "KeychainFormats", "KeychainFoundation", "KeychainPlatform"],
            // The module and its enum share a name: the interface spells the module by an alias.
            swiftSettings: [
                .unsafeFlags([
                    "-enable-library-evolution", "-emit-module-interface", "-Xfrontend", "-alias-module-names-in-module-interface",
                ])
            ]),
        .executableTarget(
            name: "keychainctl-bench",
            dependencies: ["KeychainCore", "KeychainFormats", "KeychainFoundation", "KeychainPlatform", "Security", "SecurityTesting"]),
        // What the test targets and the fuzzers share: the package's paths, waiting with a
        // deadline, the masker fed in chunks, the group-list invariants.
        .target(
            name: "KeychainTestSupport", dependencies: ["KeychainCore", "KeychainFormats", "KeychainFoundation", "KeychainPlatform"],
            path: "Tests/Support"),
        .testTarget(
            name: "KeychainCoreTests",
            dependencies: [
                "KeychainCore", "KeychainFormats", "KeychainFoundation", "KeychainPlatform", "KeychainTestSupport", "TextEscaping",
            ]),
        // Keychain code written as apps write it, through `import Security` (docs/LIBRARY.md).
        // Warnings are errors there, as in app targets that build with -warnings-as-errors: a call
        // whose result Apple's C import lets them drop (SecItemDelete(query)) must not warn.
        .testTarget(
            name: "SecurityTests", dependencies: ["KeychainCore", "Security", "SecurityTesting", "LocalAuthentication"],
            swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]),
        // Test support: runs a command where a seccomp filter blocks the kernel keyring.
        .executableTarget(name: "inject-fault", path: "Tests/InjectFault"),
        // The fuzz targets' properties (Fuzz/targets): fuzzed by fuzz-all, their seeds replayed by the tests.
        .target(
            name: "FuzzTargets",
            dependencies: ["KeychainCLI", "KeychainCore", "KeychainFormats", "KeychainFoundation", "KeychainTestSupport"],
            path: "Fuzz/targets"),
        .testTarget(
            name: "KeychainCLITests",
            dependencies: [
                "CommandLineKit", "KeychainCLI", "KeychainCore", "KeychainFormats", "KeychainFoundation", "KeychainPlatform",
                "KeychainTestSupport", "keychainctl", "inject-fault", "Security", "SecurityTesting", "FuzzTargets",
            ],
            // Golden outputs are read by path, not bundled.
            exclude: ["Golden"]),
    ],
    swiftLanguageModes: [.v6]
)

// The libFuzzer executable, declared only for `make fuzz` (KEYCHAINCTL_FUZZ=1): it has no main of
// its own and links only with `-sanitize=fuzzer`, so an ordinary build must not see it. Its
// targets (FuzzTargets) are an ordinary library, whose seeds the test suite replays.
if ProcessInfo.processInfo.environment["KEYCHAINCTL_FUZZ"] != nil {
    package.targets += [.executableTarget(name: "fuzz-all", dependencies: ["FuzzTargets"], path: "Fuzz/driver")]
}
