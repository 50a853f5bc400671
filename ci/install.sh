#!/usr/bin/env bash
# Installs keychainctl in a CI job from a release download folder, checked against its SHA256SUMS,
# and, given a credential, creates or unlocks the job's keychain without printing it. The GitHub
# Action (action.yml) runs this file; the GitLab template (ci/gitlab/keychainctl.yml) carries it
# verbatim (a test keeps the two equal).
#
# Environment:
#   KEYCHAINCTL_INSTALL_VERSION   the release, e.g. 1.0.0 (required)
#   KEYCHAINCTL_DOWNLOAD_BASE     the folder holding the release files (https:// or file://);
#                                 default on GitHub: the action repository's release v<VERSION>
#   KEYCHAINCTL_INSTALL_DIR       where the binary goes (default: $RUNNER_TEMP/keychainctl, else
#                                 $HOME/.keychainctl)
#   KEYCHAINCTL_INPUT_PASSPHRASE  optional: the keychain's passphrase
#   KEYCHAINCTL_INPUT_KEY         optional: the keychain's key (base64), instead of a passphrase
#   KEYCHAINCTL_KEYCHAIN          the keychain (default: <install dir>/keychain.db)
#   KEYCHAINCTL_UNLOCK_TIMEOUT    how long unlock caches the key (default 6h)
#   KEYCHAINCTL_PATH_FILE, KEYCHAINCTL_ENV_FILE
#                                 where the bin folder and the variables for later steps go
#                                 (default: GitHub's $GITHUB_PATH and $GITHUB_ENV)
set -euo pipefail

fail() { echo "keychainctl install: $*" >&2; exit 1; }

version="${KEYCHAINCTL_INSTALL_VERSION:-}"
[ -n "$version" ] || fail "no version given (KEYCHAINCTL_INSTALL_VERSION, the action's 'version')."
case "$version" in *[!0-9A-Za-z.+~-]*) fail "'$version' is not a version." ;; esac
base="${KEYCHAINCTL_DOWNLOAD_BASE:-}"
if [ -z "$base" ] && [ -n "${GITHUB_ACTION_REPOSITORY:-}" ]; then
    base="https://github.com/$GITHUB_ACTION_REPOSITORY/releases/download/v$version"
fi
[ -n "$base" ] || fail "no download folder (KEYCHAINCTL_DOWNLOAD_BASE)."
case "$(uname -m)" in
    x86_64) arch=x86_64 ;;
    *) fail "no release binary for $(uname -m); build it from source (README: Install)." ;;
esac
path_file="${KEYCHAINCTL_PATH_FILE:-${GITHUB_PATH:-}}"
env_file="${KEYCHAINCTL_ENV_FILE:-${GITHUB_ENV:-}}"
dir="${KEYCHAINCTL_INSTALL_DIR:-${RUNNER_TEMP:-$HOME}/keychainctl}"
[ -n "${KEYCHAINCTL_INSTALL_DIR:-}" ] || [ -n "${RUNNER_TEMP:-}" ] || dir="$HOME/.keychainctl"
keychain="${KEYCHAINCTL_KEYCHAIN:-$dir/keychain.db}"
# A line break would add a line of its own to GitHub's files: another variable for every later step.
case "$dir$keychain" in *$'\n'* | *$'\r'*) fail "the install folder or keychain path holds a line break." ;; esac

tarball="keychainctl-$version-linux-$arch.tar.gz"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
curl -fsSL --proto '=https,file' -o "$work/$tarball" "$base/$tarball" || fail "cannot download $base/$tarball."
curl -fsSL --proto '=https,file' -o "$work/SHA256SUMS" "$base/SHA256SUMS" || fail "cannot download $base/SHA256SUMS."
# Only the tarball's own line is checked: nothing else in the file is trusted or needed.
grep -E "^[0-9a-f]{64}  $tarball\$" "$work/SHA256SUMS" > "$work/check" || fail "SHA256SUMS lists no $tarball."
(cd "$work" && sha256sum --quiet -c check) || fail "$tarball does not match SHA256SUMS; nothing installed."
tar -xzf "$work/$tarball" -C "$work" --no-same-owner
install -d -m 0700 "$dir" "$dir/bin"
install -m 0755 "$work/keychainctl-$version-linux-$arch/keychainctl" "$dir/bin/keychainctl"
kc="$dir/bin/keychainctl"
"$kc" --version

[ -z "$path_file" ] || echo "$dir/bin" >> "$path_file"
[ -z "$env_file" ] || echo "KEYCHAINCTL_KEYCHAIN=$keychain" >> "$env_file"

passphrase="${KEYCHAINCTL_INPUT_PASSPHRASE:-}"
key="${KEYCHAINCTL_INPUT_KEY:-}"
unset KEYCHAINCTL_INPUT_PASSPHRASE KEYCHAINCTL_INPUT_KEY
[ -z "$passphrase" ] || [ -z "$key" ] || fail "give a passphrase or a key, not both."
[ -n "$passphrase$key" ] || exit 0
# GitHub hides the credential in every later log line; it is printed nowhere else. A mask covers one
# line, so a credential of several lines is masked line by line (through a pipe, never a file).
if [ -n "${GITHUB_ACTIONS:-}" ]; then
    printf '%s\n' "$passphrase$key" | while IFS= read -r line; do
        line="${line%$'\r'}"
        [ -z "$line" ] || echo "::add-mask::$line"
    done
fi
# The credential reaches keychainctl through a pipe (a passphrase) or its own environment (a key),
# never its command line.
with_credential() {
    if [ -n "$passphrase" ]; then
        printf '%s' "$passphrase" | KEYCHAINCTL_KEYCHAIN="$keychain" "$kc" "$@" --passphrase-fd 0
    else
        KEYCHAINCTL_KEY="$key" KEYCHAINCTL_KEYCHAIN="$keychain" "$kc" "$@"
    fi
}
if [ ! -e "$keychain" ]; then with_credential init; fi
with_credential unlock --timeout "${KEYCHAINCTL_UNLOCK_TIMEOUT:-6h}" \
    || fail "the keychain did not unlock (exit $?): a wrong credential is 51; 78 is a kernel keyring the container blocks, where later steps need KEYCHAINCTL_KEY or a key file instead."
