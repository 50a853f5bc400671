// swift-tools-version:5.9
// A package as a wrapper's is written for Apple platforms: it depends on nothing, and its code
// imports Security (or only Foundation, as Apple platforms allow). It builds on Linux with the
// flags an installed SDK writes (docs/LIBRARY.md, "Without a dependency").
import PackageDescription

let package = Package(
    name: "TokenStore",
    targets: [
        .target(name: "TokenStore"),
        .testTarget(name: "TokenStoreTests", dependencies: ["TokenStore"]),
    ]
)
