#!/bin/sh
# The public API of the `Security` module: every public declaration with its signature, as the
# compiler writes the module's interface (library evolution), without the header lines that name the
# compiler and its flags. Fixtures/API/Security.swiftinterface is the committed copy, and
# PublicAPITests fails while the build's differs from it, so every change to the surface apps call
# shows in review as a diff of that file.
#
# Usage: Scripts/public-api.sh > Fixtures/API/Security.swiftinterface
#   (builds the module first; BIN-PATH as a first argument reads an existing build instead)
set -eu
cd "$(dirname "$0")/.."
if [ $# -ge 1 ]; then
    bin="$1"
else
    swift build --target Security >&2
    bin="$(swift build --show-bin-path)"
fi
grep -v '^// swift-' "$bin/Modules/Security.swiftinterface"
