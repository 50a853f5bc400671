#!/bin/sh
# Runs a keychain wrapper's own test suite against this package's `Security` module, unmodified.
#
# Usage: Scripts/check-wrapper.sh [--sdk PREFIX [--as-published]] PATH-TO-CHECKOUT
#
# With --sdk, the package names no dependency: it is built with the flags `make install-sdk
# PREFIX=…` wrote (PREFIX/share/keychainctl/swift-flags), as a package that cannot depend on this
# one is. With --as-published too, the wrapper's own Package.swift is used, no file left out.
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
# names after `import Foundation` alone, as Apple platforms allow), and runs `swift test` under a
# throwaway HOME, where the suite's first call makes the default keychain (nothing is set up first,
# as an app sets up nothing on Apple platforms). What it leaves out, and
# why, is listed per wrapper: files for an API Apple has only on iOS, and tests whose expectation
# rests on something other than the keychain (docs/LIBRARY.md). Outside CI: it needs the wrapper's
# sources, which this repository does not carry.
set -eu
sdk="" published=""
if [ "${1:-}" = --sdk ]; then
    sdk=$(cd "${2:?usage: $0 --sdk PREFIX [--as-published] PATH-TO-CHECKOUT}" && pwd)
    shift 2
    if [ "${1:-}" = --as-published ]; then published=yes; shift; fi
    [ -f "$sdk/share/keychainctl/swift-flags" ] || { echo "$0: $sdk has no share/keychainctl/swift-flags: run make install-sdk PREFIX=$sdk" >&2; exit 66; }
fi
checkout=$(cd "${1:?usage: $0 [--sdk PREFIX [--as-published]] PATH-TO-CHECKOUT}" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/package/Sources" "$work/package/Tests" "$work/home"

# Each wrapper: its library's and tests' folders, the files left out of either (besides Info.plist),
# the tests skipped, and the profile, Team ID and bundle identifier its tests expect.
skip="" profile="" team="" bundle=""
if [ -f "$checkout/Sources/KeychainSwift.swift" ]; then
    library=KeychainSwift sources=Sources tests=Tests/KeychainSwiftTests
    # ClearTests and macOS Tests run in Apple's macOS test host only.
    leave_out="KeychainSwift.h PrivacyInfo.xcprivacy ClearTests.swift macOS*Tests KeychainSwiftTests-Bridging-Header.h"
elif [ -f "$checkout/Lib/KeychainAccess/Keychain.swift" ]; then
    library=KeychainAccess sources=Lib/KeychainAccess tests=Lib/KeychainAccessTests
    # SharedCredentialTests: shared web credentials exist on iOS only (the wrapper compiles them
    # out elsewhere). The tests expect the test host's bundle identifier as the default service:
    # an Info.plist beside the test executable gives it. The skipped tests expect the item data
    # the wrapper requests on iOS only (`#if os(iOS)`), or a Swift error caught `as NSError`,
    # which Linux's Foundation does not bridge.
    leave_out="KeychainAccess.h SharedCredentialTests.swift"
    skip="testAllKeys|testStringConversionError"
    profile="$checkout/Lib/TestHost/TestHost.entitlements"
    team=27AEDK3C9F
    bundle=com.kishikawakatsumi.KeychainAccess.TestHost
elif [ -f "$checkout/SwiftKeychainWrapper/KeychainWrapper.swift" ]; then
    library=SwiftKeychainWrapper sources=SwiftKeychainWrapper tests=SwiftKeychainWrapperTests
    leave_out="SwiftKeychainWrapper.h"
elif [ -f "$checkout/Source/Locksmith.swift" ]; then
    library=Locksmith sources=Source tests=Tests/LocksmithTests
    leave_out="Locksmith.h"
else
    echo "$0: $checkout is not keychain-swift, KeychainAccess, SwiftKeychainWrapper or Locksmith" >&2
    exit 64
fi
flags=""
if [ -n "$sdk" ]; then flags=$(cat "$sdk/share/keychainctl/swift-flags"); fi
if [ -n "$published" ]; then
    # The repository as it is: its own manifest, every file it builds.
    rm -rf "$work/package"
    cp -R "$checkout" "$work/package"
    rm -rf "$work/package/.build"
elif [ -n "$sdk" ]; then
    cp -R "$checkout/$sources" "$work/package/Sources/$library"
    cp -R "$checkout/$tests" "$work/package/Tests/${library}Tests"
    for name in Info.plist $leave_out; do rm -rf "$work/package/Sources/$library/"$name "$work/package/Tests/${library}Tests/"$name; done
    cat > "$work/package/Package.swift" <<SWIFT
// swift-tools-version:5.9
import PackageDescription
let package = Package(
    name: "WrapperCheck",
    targets: [.target(name: "$library"), .testTarget(name: "${library}Tests", dependencies: ["$library"])]
)
SWIFT
else
cp -R "$checkout/$sources" "$work/package/Sources/$library"
cp -R "$checkout/$tests" "$work/package/Tests/${library}Tests"
for name in Info.plist $leave_out; do rm -rf "$work/package/Sources/$library/"$name "$work/package/Tests/${library}Tests/"$name; done

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
fi
cd "$work/package"
# shellcheck disable=SC2086 # the flags are one line of words, as `swift build` takes them
swift build --build-tests $flags >/dev/null
# On Linux, Foundation reads the main bundle's Info.plist from the executable's folder.
if [ -n "$bundle" ]; then
    printf '<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict><key>CFBundleIdentifier</key><string>%s</string></dict></plist>\n' \
        "$bundle" > "$(swift build --show-bin-path $flags)/Info.plist"
fi
if [ -n "$skip" ]; then echo "skipped (see the script): $skip"; fi
# The summary, and the suite's own exit status (a failure or a timeout is this script's failure).
status=0
env -u XDG_DATA_HOME -u XDG_CONFIG_HOME -u KEYCHAINCTL_KEYCHAIN -u KEYCHAINCTL_KEY_FILE HOME="$work/home" \
    KEYCHAINCTL_PROFILE="$profile" KEYCHAINCTL_TEAM_ID="$team" timeout 600 swift test --skip-build $flags ${skip:+--skip "$skip"} > "$work/test.log" 2>&1 || status=$?
grep -E "Executed|error:|failed" "$work/test.log" | tail -5
exit "$status"
