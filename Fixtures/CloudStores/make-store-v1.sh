#!/bin/sh
# Writes store-v1/ (a version-1 cloud store), its account key and two devices' keychains (mac, ipad)
# with the keychainctl given (the last release whose stores are version 1), holding what
# Fixtures/CloudStores/README.md lists. Run once; the committed files are then what a later release
# must still sync and upgrade. Usage: make-store-v1.sh KEYCHAINCTL
set -eu
binary=${1:?usage: make-store-v1.sh KEYCHAINCTL}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for variable in $(env | sed -n 's/^\(KEYCHAINCTL_[A-Z_]*\)=.*/\1/p'); do unset "$variable"; done
export KEYCHAINCTL_PROFILE="$here/../Profiles/app.plist" KEYCHAINCTL_ACCOUNT_KEY_FILE="$work/account.key" HOME="$work"
mac() { "$binary" --keychain "$work/mac.db" --key-file "$work/mac.key" "$@"; }
ipad() { "$binary" --keychain "$work/ipad.db" --key-file "$work/ipad.key" "$@"; }
"$binary" cloud init "$work/store-v1" --generate-account-key-file "$work/account.key" > /dev/null
mac init --generate-key-file "$work/mac.key" > /dev/null
ipad init --generate-key-file "$work/ipad.key" > /dev/null
printf 'kept-secret' | mac add -s fixture -a kept --sync yes
printf 'bye' | mac add -s fixture -a gone --sync yes
mac sync --cloud "$work/store-v1" > /dev/null
ipad sync --cloud "$work/store-v1" > /dev/null
mac delete -s fixture -a gone --sync yes > /dev/null
mac sync --cloud "$work/store-v1" > /dev/null
ipad sync --cloud "$work/store-v1" > /dev/null
# Added on the Mac after the iPad's last sync: the iPad pulls it with the next release.
printf 'late-secret' | mac add -s fixture -a late --sync yes
mac sync --cloud "$work/store-v1" > /dev/null
rm -f "$work/store-v1/.lock"
rm -rf "$here/store-v1"
cp -R "$work/store-v1" "$here/store-v1"
cp "$work/account.key" "$work/mac.db" "$work/mac.key" "$work/ipad.db" "$work/ipad.key" "$here/"
