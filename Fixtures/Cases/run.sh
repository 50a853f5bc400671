#!/bin/sh
# Runs one case of the library: builds its keychain in a throwaway folder with its setup.sh, then
# runs its command.sh and prints a transcript: the command, its output (stdout and stderr) and
# its exit status. The case's expected.txt is that transcript with persistent references
# replaced by <stable>.
#
# Usage: Fixtures/Cases/run.sh CASE
# KEYCHAINCTL names the binary (default: keychainctl on PATH). Nothing else from the caller's
# environment reaches keychainctl, and every call is stopped after 60 seconds.
set -eu
cases=$(cd "$(dirname "$0")" && pwd)
name=${1:?usage: run.sh CASE}
dir="$cases/$name"
if [ ! -f "$dir/command.sh" ]; then
    echo "run.sh: no case '$name' in $cases" >&2
    exit 64
fi
binary=${KEYCHAINCTL:-$(command -v keychainctl || true)}
case $binary in
/*) ;;
"") echo "run.sh: no keychainctl on PATH; set KEYCHAINCTL" >&2; exit 69 ;;
*) binary=$(pwd)/$binary ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
for variable in $(env | sed -n 's/^\(KEYCHAINCTL_[A-Z_]*\)=.*/\1/p'); do unset "$variable"; done
mkdir "$work/bin"
printf '#!/bin/sh\nexec timeout -k 5 60 "%s" "$@"\n' "$binary" > "$work/bin/keychainctl"
chmod +x "$work/bin/keychainctl"
PATH="$work/bin:/usr/bin:/bin"
export PATH KEYCHAINCTL_KEYCHAIN="$work/keychain.db" KEYCHAINCTL_KEY_FILE="$work/key"
keychainctl init --generate-key-file "$work/key" > /dev/null
cd "$dir"
if [ -f setup.sh ]; then sh -eu ./setup.sh > /dev/null < /dev/null; fi
sed -e '/^#/d' -e '/^$/d' -e 's/^/$ /' command.sh
set +e
sh ./command.sh < /dev/null 2>&1
echo "exit: $?"
