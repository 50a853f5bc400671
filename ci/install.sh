#!/usr/bin/env bash
# Installs keychainctl in a CI job from a release download folder, checked against its SHA256SUMS
# or a pinned SHA-256, and, given a credential, creates or unlocks the job's keychain without
# printing it. Everything goes into a folder of the job's own, and the key lives no longer than the
# job: cached for 30 minutes (20 unused) and locked when the job ends (the Action's post step, the
# template's after_script), or, where the kernel keyring is blocked, in a key file (the template
# turns it into a descriptor of the job's shell and removes it). The GitHub Action (action.yml,
# ci/action/main.js) runs this file; the GitLab template (ci/gitlab/keychainctl.yml) carries it
# verbatim (a test keeps the two equal).
#
# Environment:
#   KEYCHAINCTL_INSTALL_VERSION   the release, e.g. 1.0.0 (required)
#   KEYCHAINCTL_DOWNLOAD_BASE     the folder holding the release files (https:// or file://);
#                                 default on GitHub: the action repository's release v<VERSION>,
#                                 the repository from KEYCHAINCTL_ACTION_REPOSITORY,
#                                 GITHUB_ACTION_REPOSITORY or GITHUB_ACTION_PATH
#   KEYCHAINCTL_INSTALL_SHA256    optional: the tarball's SHA-256; when given, SHA256SUMS is not read
#   KEYCHAINCTL_INSTALL_DIR       the job's folder: the binary, the keychain, a key file (default:
#                                 $RUNNER_TEMP/keychainctl on GitHub, $CI_PROJECT_DIR/.keychainctl-job-
#                                 $CI_JOB_ID on GitLab, else $HOME/.keychainctl)
#   KEYCHAINCTL_INPUT_PASSPHRASE  optional: the keychain's passphrase
#   KEYCHAINCTL_INPUT_KEY         optional: the keychain's key (base64), instead of a passphrase
#   KEYCHAINCTL_INPUT_PASSPHRASE_FILE, KEYCHAINCTL_INPUT_KEY_FILE
#                                 or a file holding either (a GitLab "File" variable, whose value
#                                 is the path): read, then removed; trailing newlines are dropped
#   KEYCHAINCTL_KEY_DIR           where a key file goes when the keyring is blocked (default: the
#                                 job's folder)
#   KEYCHAINCTL_INPUT_KEYCHAIN, KEYCHAINCTL_KEYCHAIN
#                                 the keychain (the first when not empty, else the second, else
#                                 <job folder>/keychain.db)
#   KEYCHAINCTL_UNLOCK_TIMEOUT    how long unlock caches the key (default 30m)
#   KEYCHAINCTL_UNLOCK_IDLE       and how long unused (default 20m)
#   KEYCHAINCTL_PATH_FILE, KEYCHAINCTL_ENV_FILE
#                                 where the bin folder and the variables for later steps go
#                                 (default: GitHub's $GITHUB_PATH and $GITHUB_ENV)
#   GITHUB_STATE                  when set (the Action), where the binary, its SHA-256, the keychain
#                                 and any key file are recorded for the post step that locks
set -euo pipefail

fail() { echo "keychainctl install: $*" >&2; exit 1; }

# One ::add-mask:: line per line of $1: the runner unescapes %25, %0D and %0A in a command's data,
# so they are escaped here, or a credential holding them would be masked as another string.
add_masks() {
    printf '%s\n' "$1" | while IFS= read -r line; do
        line="${line%$'\r'}"
        line="${line//%/%25}"
        line="${line//$'\r'/%0D}"
        [ -z "$line" ] || echo "::add-mask::$line"
    done
}

version="${KEYCHAINCTL_INSTALL_VERSION:-}"
[ -n "$version" ] || fail "no version given (KEYCHAINCTL_INSTALL_VERSION, the action's 'version')."
case "$version" in *[!0-9A-Za-z.+~-]*) fail "'$version' is not a version." ;; esac
base="${KEYCHAINCTL_DOWNLOAD_BASE:-}"
if [ -z "$base" ]; then
    # The runner leaves GITHUB_ACTION_REPOSITORY empty inside composite actions; the action's own
    # checkout, .../_actions/OWNER/NAME/REF, names it too.
    repository="${KEYCHAINCTL_ACTION_REPOSITORY:-${GITHUB_ACTION_REPOSITORY:-}}"
    if [ -z "$repository" ]; then
        case "${GITHUB_ACTION_PATH:-}" in
            */_actions/*/*/*)
                rest="${GITHUB_ACTION_PATH##*/_actions/}"
                owner="${rest%%/*}"
                rest="${rest#*/}"
                repository="$owner/${rest%%/*}"
                ;;
        esac
    fi
    case "$repository" in
        "" | */*/* | *[!A-Za-z0-9_./-]*) ;;
        */*) base="https://github.com/$repository/releases/download/v$version" ;;
    esac
fi
[ -n "$base" ] || fail "cannot tell where to download from: set the action's 'download-base' input (KEYCHAINCTL_DOWNLOAD_BASE) to the folder holding the release files."
pinned="${KEYCHAINCTL_INSTALL_SHA256:-}"
case "${#pinned}:$pinned" in
    0:) ;;
    64:*[!0-9a-f]*) fail "the pinned SHA-256 is not 64 lowercase hexadecimal digits." ;;
    64:*) ;;
    *) fail "the pinned SHA-256 is not 64 lowercase hexadecimal digits." ;;
esac
case "$(uname -m)" in
    x86_64) arch=x86_64 ;;
    *) fail "no release binary for $(uname -m); build it from source (README: Install)." ;;
esac
path_file="${KEYCHAINCTL_PATH_FILE:-${GITHUB_PATH:-}}"
env_file="${KEYCHAINCTL_ENV_FILE:-${GITHUB_ENV:-}}"
if [ -n "${KEYCHAINCTL_INSTALL_DIR:-}" ]; then
    dir="$KEYCHAINCTL_INSTALL_DIR"
elif [ -n "${RUNNER_TEMP:-}" ]; then
    dir="$RUNNER_TEMP/keychainctl"
elif [ -n "${CI_PROJECT_DIR:-}" ] && [ -n "${CI_JOB_ID:-}" ]; then
    dir="$CI_PROJECT_DIR/.keychainctl-job-$CI_JOB_ID"
else
    dir="$HOME/.keychainctl"
fi
keychain="${KEYCHAINCTL_INPUT_KEYCHAIN:-${KEYCHAINCTL_KEYCHAIN:-$dir/keychain.db}}"
# A line break would add a line of its own to GitHub's files: another variable for every later step.
case "$dir$keychain" in *$'\n'* | *$'\r'*) fail "the install folder or keychain path holds a line break." ;; esac

tarball="keychainctl-$version-linux-$arch.tar.gz"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
curl -fsSL --proto '=https,file' -o "$work/$tarball" "$base/$tarball" || fail "cannot download $base/$tarball."
if [ -z "$pinned" ]; then
    curl -fsSL --proto '=https,file' -o "$work/SHA256SUMS" "$base/SHA256SUMS" || fail "cannot download $base/SHA256SUMS."
    # Only the tarball's own line, compared as plain strings: nothing else in the file is trusted or needed.
    expected="$(awk -v name="$tarball" 'length($1) == 64 && $2 == name && NF == 2 { print $1; exit }' "$work/SHA256SUMS")"
    [ -n "$expected" ] || fail "SHA256SUMS lists no $tarball."
else
    expected="$pinned"
fi
actual="$(sha256sum "$work/$tarball" | cut -d ' ' -f 1)"
[ "$actual" = "$expected" ] || fail "$tarball does not match ${pinned:+the pinned SHA-256}${pinned:-SHA256SUMS}; nothing installed."
tar -xzf "$work/$tarball" -C "$work" --no-same-owner
install -d -m 0700 "$dir" "$dir/bin"
install -m 0755 "$work/keychainctl-$version-linux-$arch/keychainctl" "$dir/bin/keychainctl"
kc="$dir/bin/keychainctl"
# git's and Docker's credential helpers: the same binary by another name.
for helper in git-credential-keychainctl docker-credential-keychainctl; do ln -sf keychainctl "$dir/bin/$helper"; done
"$kc" --version

[ -z "$path_file" ] || echo "$dir/bin" >> "$path_file"
[ -z "$env_file" ] || echo "KEYCHAINCTL_KEYCHAIN=$keychain" >> "$env_file"

# The post step runs this binary only if it is still the one installed here.
state_file="${GITHUB_STATE:-}"
[ -z "$state_file" ] || printf 'bin=%s\nsha256=%s\nkeychain=%s\n' "$kc" "$(sha256sum "$kc" | cut -d ' ' -f 1)" "$keychain" >> "$state_file"

# A credential from a file (a GitLab "File" variable): read, and the file removed, so that only its
# path stays in the job's environment.
from_file() {
    [ -n "$1" ] || return 0
    [ -f "$1" ] || fail "$2 names $1, which is not a file."
    cat "$1"
    rm -f "$1" || echo "keychainctl install: cannot remove $1 after reading it; remove it yourself." >&2
}
passphrase="${KEYCHAINCTL_INPUT_PASSPHRASE:-}"
key="${KEYCHAINCTL_INPUT_KEY:-}"
if [ -n "${KEYCHAINCTL_INPUT_PASSPHRASE_FILE:-}" ]; then
    passphrase="$(from_file "$KEYCHAINCTL_INPUT_PASSPHRASE_FILE" KEYCHAINCTL_INPUT_PASSPHRASE_FILE)"
fi
if [ -n "${KEYCHAINCTL_INPUT_KEY_FILE:-}" ]; then key="$(from_file "$KEYCHAINCTL_INPUT_KEY_FILE" KEYCHAINCTL_INPUT_KEY_FILE)"; fi
unset KEYCHAINCTL_INPUT_PASSPHRASE KEYCHAINCTL_INPUT_KEY KEYCHAINCTL_INPUT_PASSPHRASE_FILE KEYCHAINCTL_INPUT_KEY_FILE
[ -z "$passphrase" ] || [ -z "$key" ] || fail "give a passphrase or a key, not both."
[ -n "$passphrase$key" ] || exit 0
# GitHub hides the credential in every later log line; it is printed nowhere else. A mask covers one
# line, so a credential of several lines is masked line by line (through a pipe, never a file).
[ -z "${GITHUB_ACTIONS:-}" ] || add_masks "$passphrase$key"
# The credential reaches keychainctl through a pipe (a passphrase) or its own environment (a key),
# never its command line.
with_credential() {
    if [ -n "$passphrase" ]; then
        printf '%s' "$passphrase" | KEYCHAINCTL_KEYCHAIN="$keychain" "$kc" "$@" --passphrase-fd 0
    else
        KEYCHAINCTL_KEY="$key" KEYCHAINCTL_KEYCHAIN="$keychain" "$kc" "$@"
    fi
}
if [ ! -e "$keychain" ]; then
    # init's first line only: what it adds is advice for a keychain opened by hand later, where
    # this job's is unlocked below and locked when the job ends.
    created="$(with_credential init)" || fail "the keychain could not be created (exit $?)."
    printf '%s\n' "${created%%$'\n'*}"
fi
status=0
with_credential unlock --timeout "${KEYCHAINCTL_UNLOCK_TIMEOUT:-30m}" --idle "${KEYCHAINCTL_UNLOCK_IDLE:-20m}" 2> "$work/unlock.err" || status=$?
if [ "$status" -eq 78 ]; then
    # No kernel keyring (a container's seccomp profile): the key goes into a file instead.
    key_file="${KEYCHAINCTL_KEY_DIR:-$dir}/keychain.key"
    rm -f "$key_file"
    with_credential unlock --to-key-file "$key_file" 2> "$work/unlock.err" \
        || fail "the keychain did not unlock (exit $?): $(cat "$work/unlock.err")"
    [ -z "$env_file" ] || echo "KEYCHAINCTL_KEY_FILE=$key_file" >> "$env_file"
    [ -z "$state_file" ] || echo "key_file=$key_file" >> "$state_file"
    echo "keychainctl install: no kernel keyring here (a container's seccomp profile): the key is in a file (mode 0600) for this job's later steps, removed when the job ends." >&2
elif [ "$status" -ne 0 ]; then
    fail "the keychain did not unlock (exit $status; 51 is a wrong credential): $(cat "$work/unlock.err")"
else
    cat "$work/unlock.err" >&2
fi
