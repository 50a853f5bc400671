#!/bin/sh
# Runs a keychain wrapper's own test suite against this package's `Security` module, unmodified.
#
# Usage: Scripts/check-wrapper.sh PATH-TO-KEYCHAIN-SWIFT-CHECKOUT
#
# The checkout is evgenyneu/keychain-swift (git clone it first; this script fetches nothing). It
# builds a throwaway package whose targets are the checkout's Sources and Tests/KeychainSwiftTests,
# depending on this package's Security product, with `-import-module Security` on the test target
# (its tests use Security's names after `import Foundation` alone, as Apple platforms allow), makes
# a keychain with `keychainctl init` under a throwaway HOME, and runs `swift test`. Outside CI: it
# needs the wrapper's sources, which this repository does not carry.
set -eu
checkout=$(cd "${1:?usage: $0 PATH-TO-KEYCHAIN-SWIFT-CHECKOUT}" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/package/Tests" "$work/home"
cp -R "$checkout/Sources" "$work/package/Sources"
cp -R "$checkout/Tests/KeychainSwiftTests" "$work/package/Tests/KeychainSwiftTests"
cat > "$work/package/Package.swift" <<SWIFT
// swift-tools-version:5.9
import PackageDescription
let security = Target.Dependency.product(name: "Security", package: "$(basename "$here" | tr "A-Z" "a-z")", condition: .when(platforms: [.linux]))
let package = Package(
    name: "WrapperCheck",
    dependencies: [.package(path: "$here")],
    targets: [
        .target(name: "KeychainSwift", dependencies: [security], path: "Sources",
                exclude: ["Info.plist", "KeychainSwift.h", "PrivacyInfo.xcprivacy"]),
        .testTarget(name: "KeychainSwiftTests", dependencies: ["KeychainSwift", security], path: "Tests/KeychainSwiftTests",
                    exclude: ["ClearTests.swift", "macOS Tests", "Info.plist", "KeychainSwiftTests-Bridging-Header.h"],
                    swiftSettings: [.unsafeFlags(["-Xfrontend", "-import-module", "-Xfrontend", "Security"])]),
    ]
)
SWIFT
(cd "$here" && swift build --product keychainctl >/dev/null)
HOME="$work/home" "$(cd "$here" && swift build --show-bin-path)/keychainctl" init >/dev/null
cd "$work/package"
HOME="$work/home" swift test 2>&1 | grep -E "Executed|error:|failed" | tail -5
