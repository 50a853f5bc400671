// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "keychainctl",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "keychainctl", targets: ["keychainctl"]),
        .executable(name: "keychainctl-bench", targets: ["keychainctl-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CSodium", pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]),
        .target(name: "KeychainCore", dependencies: ["CSQLite", "CSodium"]),
        .target(
            name: "KeychainCLI",
            dependencies: [
                "KeychainCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(name: "keychainctl", dependencies: ["KeychainCLI"]),
        .executableTarget(name: "keychainctl-bench", dependencies: ["KeychainCore"]),
        .testTarget(name: "KeychainCoreTests", dependencies: ["KeychainCore"]),
        .testTarget(
            name: "KeychainCLITests",
            dependencies: ["KeychainCLI", "KeychainCore", "keychainctl"]),
    ],
    swiftLanguageModes: [.v6]
)
