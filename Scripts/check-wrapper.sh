#!/bin/sh
# Runs a keychain wrapper's own test suite against this package's `Security` module, unmodified.
#
# Usage: Scripts/check-wrapper.sh PATH-TO-CHECKOUT
#
# The checkout is one of the wrappers below (git clone it first; this script fetches nothing):
#
#   evgenyneu/keychain-swift        Sources, Tests/KeychainSwiftTests
#   kishikawakatsumi/KeychainAccess Lib/KeychainAccess, Lib/KeychainAccessTests, run as its test host
#                                   (Lib/TestHost/TestHost.entitlements, Team ID 27AEDK3C9F)
#   jrendel/SwiftKeychainWrapper    SwiftKeychainWrapper, SwiftKeychainWrapperTests
#   matthewpalmer/Locksmith         Source, Tests/LocksmithTests
#
# It builds a throwaway package whose targets are the wrapper's sources and tests, depending on this
# package's Security product, with `-import-module Security` on both (they may use Security's
# names after `import Foundation` alone, as Apple platforms allow), makes a keychain
# with `keychainctl init` under a throwaway HOME, and runs `swift test`. What it leaves out, and
# why, is listed per wrapper: files for an API Apple has only on iOS, and tests whose expectation
# rests on something other than the keychain (docs/LIBRARY.md). Outside CI: it needs the wrapper's
# sources, which this repository does not carry.
set -eu
checkout=$(cd "${1:?usage: $0 PATH-TO-CHECKOUT}" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/package/Sources" "$work/package/Tests" "$work/home"

if [ -f "$checkout/Sources/KeychainSwift.swift" ]; then
    library=KeychainSwift
    cp -R "$checkout/Sources" "$work/package/Sources/$library"
    cp -R "$checkout/Tests/KeychainSwiftTests" "$work/package/Tests/${library}Tests"
    # ClearTests and macOS Tests run in Apple's macOS test host only.
    remove="Sources/$library/Info.plist Sources/$library/KeychainSwift.h Sources/$library/PrivacyInfo.xcprivacy
        Tests/${library}Tests/ClearTests.swift Tests/${library}Tests/macOS*Tests Tests/${library}Tests/Info.plist
        Tests/${library}Tests/KeychainSwiftTests-Bridging-Header.h"
    skip=""
    profile=""
    team=""
    bundle=""
elif [ -f "$checkout/Lib/KeychainAccess/Keychain.swift" ]; then
    library=KeychainAccess
    cp -R "$checkout/Lib/KeychainAccess" "$work/package/Sources/$library"
    cp -R "$checkout/Lib/KeychainAccessTests" "$work/package/Tests/${library}Tests"
    # SharedCredentialTests: shared web credentials exist on iOS only (the wrapper compiles them
    # out elsewhere). The tests expect the test host's bundle identifier as the default service:
    # an Info.plist beside the test executable gives it. The skipped tests expect the item data
    # the wrapper requests on iOS only (`#if os(iOS)`), or a Swift error caught `as NSError`,
    # which Linux's Foundation does not bridge.
    remove="Sources/$library/Info.plist Sources/$library/KeychainAccess.h
        Tests/${library}Tests/Info.plist Tests/${library}Tests/SharedCredentialTests.swift"
    skip="testAllKeys|testStringConversionError"
    profile="$checkout/Lib/TestHost/TestHost.entitlements"
    team=27AEDK3C9F
    bundle=com.kishikawakatsumi.KeychainAccess.TestHost
elif [ -f "$checkout/SwiftKeychainWrapper/KeychainWrapper.swift" ]; then
    library=SwiftKeychainWrapper
    cp -R "$checkout/SwiftKeychainWrapper" "$work/package/Sources/$library"
    cp -R "$checkout/SwiftKeychainWrapperTests" "$work/package/Tests/${library}Tests"
    remove="Sources/$library/Info.plist Sources/$library/SwiftKeychainWrapper.h Tests/${library}Tests/Info.plist"
    skip=""
    profile=""
    team=""
    bundle=""
elif [ -f "$checkout/Source/Locksmith.swift" ]; then
    library=Locksmith
    cp -R "$checkout/Source" "$work/package/Sources/$library"
    cp -R "$checkout/Tests/LocksmithTests" "$work/package/Tests/${library}Tests"
    remove="Sources/$library/Info.plist Sources/$library/Locksmith.h Tests/${library}Tests/Info.plist"
    skip=""
    profile=""
    team=""
    bundle=""
else
    echo "$0: $checkout is not keychain-swift, KeychainAccess, SwiftKeychainWrapper or Locksmith" >&2
    exit 64
fi
for path in $remove; do rm -rf "$work/package/"$path; done

cat > "$work/package/Package.swift" <<SWIFT
// swift-tools-version:5.9
import PackageDescription
let security = Target.Dependency.product(name: "Security", package: "$(basename "$here" | tr "A-Z" "a-z")", condition: .when(platforms: [.linux]))
let importSecurity = [SwiftSetting.unsafeFlags(["-Xfrontend", "-import-module", "-Xfrontend", "Security"])]
let package = Package(
    name: "WrapperCheck",
    dependencies: [.package(path: "$here")],
    targets: [
        .target(name: "$library", dependencies: [security], swiftSettings: importSecurity),
        .testTarget(name: "${library}Tests", dependencies: ["$library", security], swiftSettings: importSecurity),
    ]
)
SWIFT
(cd "$here" && swift build --product keychainctl >/dev/null)
HOME="$work/home" "$(cd "$here" && swift build --show-bin-path)/keychainctl" init >/dev/null
cd "$work/package"
swift build --build-tests >/dev/null
# On Linux, Foundation reads the main bundle's Info.plist from the executable's folder.
if [ -n "$bundle" ]; then
    printf '<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict><key>CFBundleIdentifier</key><string>%s</string></dict></plist>\n' \
        "$bundle" > "$(swift build --show-bin-path)/Info.plist"
fi
if [ -n "$skip" ]; then echo "skipped (see the script): $skip"; fi
HOME="$work/home" KEYCHAINCTL_PROFILE="$profile" KEYCHAINCTL_TEAM_ID="$team" \
    timeout 600 swift test --skip-build ${skip:+--skip "$skip"} 2>&1 | grep -E "Executed|error:|failed" | tail -5
