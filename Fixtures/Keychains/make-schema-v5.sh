#!/bin/sh
# Writes schema-v5.db and schema-v5.key with the keychainctl given (the release that made schema
# version 5 current), holding what Fixtures/Keychains/README.md lists. Run once; the committed files
# are then what a later release must still open. Usage: make-schema-v5.sh KEYCHAINCTL
set -eu
binary=${1:?usage: make-schema-v5.sh KEYCHAINCTL}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for variable in $(env | sed -n 's/^\(KEYCHAINCTL_[A-Z_]*\)=.*/\1/p'); do unset "$variable"; done
export KEYCHAINCTL_KEYCHAIN="$work/schema-v5.db" KEYCHAINCTL_KEY_FILE="$work/schema-v5.key"
export KEYCHAINCTL_PROFILE="$here/../Profiles/app.plist" HOME="$work"
kc() { "$binary" "$@"; }
kc init --generate-key-file "$KEYCHAINCTL_KEY_FILE" > /dev/null
printf 'written-by-schema-5' | kc add -s fixture -a v5 -g SKMME9E2Y8.com.example.shared
printf 'field-v5' > "$work/binn"
printf 'inet-v5' | kc add --class inet --server example.com -a v5 --protocol https --port 443 --data-field "binn=$work/binn"
printf 'synced' | kc add -s fixture -a synced5 --sync yes
printf 'gone' | kc add -s fixture -a gone --sync yes
printf 'guarded' | kc add -s fixture -a guarded --access-control user-presence --accessible when-unlocked-this-device-only
printf 'fixture' > "$work/p12pass"
kc import "$here/../Certificates/identity-modern.p12" --p12-passphrase-fd 3 3< "$work/p12pass" > /dev/null
kc cloud init "$work/cloud" --generate-account-key-file "$work/account.key" > /dev/null
# Synced once, so the deleted item leaves a tombstone for the other devices.
KEYCHAINCTL_ACCOUNT_KEY_FILE="$work/account.key" kc sync --cloud "$work/cloud" > /dev/null
kc delete -s fixture -a gone --sync yes > /dev/null
kc verify > /dev/null
cp "$work/schema-v5.db" "$work/schema-v5.key" "$here/"
