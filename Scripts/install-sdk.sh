#!/bin/sh
# Installs the `Security` module, with `LocalAuthentication` and `SecurityTesting`, for packages that
# do not depend on this one: their module interfaces (library evolution, so a client needs no module
# of the engine's), the shared library with the engine inside, and one line of `swift build` flags
# that point a package at them.
#
# Usage: Scripts/install-sdk.sh PREFIX BIN-PATH
#   BIN-PATH is the build folder that holds libKeychainSecurity.so (`swift build --show-bin-path`);
#   `make install-sdk PREFIX=DIR` builds it and runs this.
#
# Writes PREFIX/lib/libKeychainSecurity.so, PREFIX/lib/swift/linux/MODULE.swiftmodule/TRIPLE.swiftinterface
# for each module and PREFIX/share/keychainctl/swift-flags. A package then builds and tests with
#   swift build $(cat PREFIX/share/keychainctl/swift-flags)
set -eu
prefix="${1:?usage: $0 PREFIX BIN-PATH}"
bin="${2:?usage: $0 PREFIX BIN-PATH}"
case "$prefix" in
*[[:space:]]*) echo "$0: PREFIX has a space in it, which the one-line flags cannot carry: $prefix" >&2; exit 64 ;;
/*) ;;
*) prefix="$(pwd)/$prefix" ;;
esac
modules="Security LocalAuthentication SecurityTesting"
library="$bin/libKeychainSecurity.so"
for file in "$library" $(for module in $modules; do echo "$bin/Modules/$module.swiftinterface"; done); do
    [ -f "$file" ] || { echo "$0: $file is missing: build the KeychainSecurity product first (make install-sdk)" >&2; exit 66; }
done
# The build folder is .build/TRIPLE/CONFIG: the interface is named after the target it was built for.
triple=$(basename "$(dirname "$(cd "$bin" && pwd -P)")")
mkdir -p "$prefix/share/keychainctl"
for module in $modules; do
    mkdir -p "$prefix/lib/swift/linux/$module.swiftmodule"
    install -m 644 "$bin/Modules/$module.swiftinterface" "$prefix/lib/swift/linux/$module.swiftmodule/$triple.swiftinterface"
done
install -m 755 "$library" "$prefix/lib/libKeychainSecurity.so"
# -import-module: a file that imports only Foundation sees Security's names, as on Apple platforms.
printf '%s\n' "-Xswiftc -I -Xswiftc $prefix/lib/swift/linux -Xlinker -L$prefix/lib -Xlinker -lKeychainSecurity -Xlinker -rpath -Xlinker $prefix/lib -Xswiftc -Xfrontend -Xswiftc -import-module -Xswiftc -Xfrontend -Xswiftc Security" \
    > "$prefix/share/keychainctl/swift-flags"
echo "installed the Security, LocalAuthentication and SecurityTesting modules in $prefix; build a package with: swift build \$(cat $prefix/share/keychainctl/swift-flags)"
