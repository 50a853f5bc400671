#!/usr/bin/env bash
# The main job on a throwaway keychain: a script stores and reads its secrets with no Apple file;
# an app stores a token, its share extension reads it, the
# widget that lacks Keychain Sharing cannot, a group without its Team ID prefix is refused with a
# hint, a synchronizable item is invisible to a plain query, and a CI step gets the token through
# exec, masked in its output; a signing identity comes from a PKCS#12, and only targets reading both its
# certificate and its key see it.
set -u
KC="${1:?usage: demo.sh PATH-TO-keychainctl}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export KEYCHAINCTL_KEYCHAIN="$WORK/keychain.db" KEYCHAINCTL_KEY_FILE="$WORK/keychain.key" XDG_CONFIG_HOME="$WORK/config"
P="$ROOT/Fixtures/Profiles"

step() { printf '\n\033[1m# %s\033[0m\n' "$1"; }
show() {
  # Prints the command (profile paths shortened), runs it, and prints its exit status.
  printf '$ %s\n' "$(printf '%s ' "$@" | sed "s|$P/|Fixtures/Profiles/|g; s|$KC|keychainctl|")"
  "$@"
  printf '(exit %s)\n' "$?"
}

step "A throwaway keychain with a random key file"
show "$KC" init --generate-key-file "$WORK/keychain.key"

step "A script's secrets, with no Apple file: set, get, ls, rm (the built-in profile)"
printf '$ echo "ghp_example" | keychainctl set github\n'
echo "ghp_example" | "$KC" set github
printf '(exit %s)\n' "$?"
printf '$ TOKEN=$(keychainctl get github)\n'
TOKEN=$("$KC" get github)
printf '(exit %s; %s bytes, no trailing newline)\n' "$?" "${#TOKEN}"
show "$KC" set deploy --generate
show "$KC" ls
show "$KC" rm deploy
show "$KC" backup "$WORK/backup.db"

step "The app's access groups (entitlements from its plist)"
show "$KC" groups --profile "$P/app.plist"

step "The app stores a token in the shared group (secret on stdin, never in argv)"
printf '$ printf %%s "$TOKEN" | keychainctl add -s api.example.com -a ci -g SKMME9E2Y8.com.example.shared --profile Fixtures/Profiles/app.plist\n'
printf 'tok-3f9a' | "$KC" add -s api.example.com -a ci -g SKMME9E2Y8.com.example.shared --profile "$P/app.plist"
printf '(exit %s)\n' "$?"

step "Its share extension, a member of the shared group, reads it"
printf '$ keychainctl find -s api.example.com -a ci -w --profile Fixtures/Profiles/share-extension.plist\n'
"$KC" find -s api.example.com -a ci -w --profile "$P/share-extension.plist"
printf '\n(exit %s)\n' "$?"
show "$KC" find -s api.example.com -a ci --format json --profile "$P/share-extension.plist"

step "A CI step runs a command with the token as the share extension: masked in its log, all or nothing"
show "$KC" exec --profile "$P/share-extension.plist" --env API_TOKEN=service=api.example.com,account=ci -- sh -c 'echo "token: $API_TOKEN"'
show "$KC" exec --profile "$P/share-extension.plist" --env API_TOKEN=service=api.example.com,account=nobody -- sh -c 'echo never runs'

step "The widget lacks Keychain Sharing: the item is simply invisible to it"
show "$KC" groups --profile "$P/widget.plist"
show "$KC" find -s api.example.com -a ci --profile "$P/widget.plist"

step "An access group without its Team ID prefix is refused, with the group meant"
printf '$ printf x | keychainctl add -s other -g com.example.shared --profile Fixtures/Profiles/app.plist\n'
printf x | "$KC" add -s other -g com.example.shared --profile "$P/app.plist"
printf '(exit %s)\n' "$?"

step "A synchronizable item is invisible to a plain query"
printf '$ printf x | keychainctl add -s synced -a ci --sync yes --profile Fixtures/Profiles/app.plist\n'
printf x | "$KC" add -s synced -a ci --sync yes --profile "$P/app.plist"
printf '(exit %s)\n' "$?"
show "$KC" find -s synced --profile "$P/app.plist"
show "$KC" find -s synced --sync any --return persistent-ref --profile "$P/app.plist"

C="$ROOT/Fixtures/Certificates"
step "A CI job imports its signing identity from a PKCS#12 (passphrase on a descriptor, never in argv)"
printf '$ keychainctl import Fixtures/Certificates/identity-modern.p12 --p12-passphrase-fd 3 --group SKMME9E2Y8.com.example.shared --profile Fixtures/Profiles/app.plist 3<<<"$P12_PASSWORD"\n'
"$KC" import "$C/identity-modern.p12" --p12-passphrase-fd 3 --group SKMME9E2Y8.com.example.shared --profile "$P/app.plist" 3<<<"fixture"
printf '(exit %s)\n' "$?"
show "$KC" find --class idnt --return ref --profile "$P/share-extension.plist"
show "$KC" explain --class idnt --profile "$P/widget.plist"
