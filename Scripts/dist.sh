#!/usr/bin/env bash
# Packs a keychainctl binary for release into OUT (default dist/):
#   keychainctl-VERSION-linux-ARCH.tar.gz  the stripped binary, its credential-helper links, man page,
#                                           completions, README, LICENSE
#   keychainctl_VERSION_DEBARCH.deb         the same laid out for Debian (no dependencies: it is static)
#   SHA256SUMS                              both files' checksums
# Reproducible: every time stamp is the commit's, entries are sorted, owners numeric, gzip keeps no
# name or time. `make dist` builds the release binary and runs this; tests run it on the debug
# binary with --bin to make a download folder for the GitHub Action and the GitLab template.
#
# Usage: Scripts/dist.sh [--bin PATH] [OUT]
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
bin=""
if [ "${1:-}" = "--bin" ]; then bin="$2"; shift 2; fi
out="${1:-$root/dist}"
[ -n "$bin" ] || { echo "dist.sh: --bin PATH is required (make dist passes the release binary)" >&2; exit 64; }

version="$(tr -d '"\n' < "$root/Sources/CBuildInfo/VERSION")"
[ -n "$version" ] || { echo "dist.sh: no version in Sources/CBuildInfo/VERSION" >&2; exit 1; }
arch="$(uname -m)"
case "$arch" in
    x86_64) debarch=amd64 ;;
    aarch64) debarch=arm64 ;;
    *) debarch="$arch" ;;
esac
# The commit's time, for every time stamp (SOURCE_DATE_EPOCH when given, as reproducible builds do).
epoch="${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 0)}"
export SOURCE_DATE_EPOCH="$epoch"

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
umask 022

name="keychainctl-$version-linux-$arch"
tree="$stage/$name"
install -d "$tree/completions"
objcopy --strip-all "$bin" "$tree/keychainctl"
chmod 0755 "$tree/keychainctl"
# git's and Docker's credential helpers are the binary called by another name.
helpers="git-credential-keychainctl docker-credential-keychainctl"
for helper in $helpers; do ln -s keychainctl "$tree/$helper"; done
"$tree/keychainctl" manpage > "$tree/keychainctl.1"
"$tree/keychainctl" completion bash > "$tree/completions/keychainctl.bash"
"$tree/keychainctl" completion zsh > "$tree/completions/_keychainctl"
"$tree/keychainctl" completion fish > "$tree/completions/keychainctl.fish"
install -m 0644 "$root/README.md" "$root/LICENSE" "$tree/"

# Debian's layout: bash-completion, zsh and fish look in these folders.
deb="$stage/deb"
install -d "$deb/DEBIAN" "$deb/usr/bin" "$deb/usr/share/man/man1" "$deb/usr/share/bash-completion/completions" \
    "$deb/usr/share/zsh/vendor-completions" "$deb/usr/share/fish/vendor_completions.d" "$deb/usr/share/doc/keychainctl" \
    "$deb/usr/share/lintian/overrides"
install -m 0755 "$tree/keychainctl" "$deb/usr/bin/keychainctl"
gzip -9 -n < "$tree/keychainctl.1" > "$deb/usr/share/man/man1/keychainctl.1.gz"
# Each helper's name leads to the binary, and its man page to keychainctl(1), which describes it.
for helper in $helpers; do
    ln -s keychainctl "$deb/usr/bin/$helper"
    ln -s keychainctl.1.gz "$deb/usr/share/man/man1/$helper.1.gz"
done
install -m 0644 "$tree/completions/keychainctl.bash" "$deb/usr/share/bash-completion/completions/keychainctl"
install -m 0644 "$tree/completions/_keychainctl" "$deb/usr/share/zsh/vendor-completions/_keychainctl"
install -m 0644 "$tree/completions/keychainctl.fish" "$deb/usr/share/fish/vendor_completions.d/keychainctl.fish"
{
    echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
    echo "Upstream-Name: keychainctl"
    echo
    echo "Files: *"
    echo "Copyright: keychainctl authors"
    echo "License: Apache-2.0"
    echo " On Debian systems the full text of the Apache License 2.0 is in"
    echo " /usr/share/common-licenses/Apache-2.0. The binary is statically linked; the notices of"
    echo " the libraries it contains follow."
    echo " ."
    sed -n '/^Third-party notices/,$p' "$root/LICENSE" | sed -e 's/^$/./' -e 's/^/ /'
} > "$deb/usr/share/doc/keychainctl/copyright"
date_line="$(date -u -R -d "@$epoch")"
{
    echo "keychainctl ($version) unstable; urgency=medium"
    echo
    echo "  * Release $version; CHANGELOG.md in the source lists what changed."
    echo
    echo " -- keychainctl maintainers <maintainers@keychainctl.invalid>  $date_line"
} | gzip -9 -n > "$deb/usr/share/doc/keychainctl/changelog.gz"
# Documented in README: the binary is static on purpose (nothing to install beside it).
{
    echo "keychainctl: statically-linked-binary [usr/bin/keychainctl]"
    echo "keychainctl: embedded-library zlib [usr/bin/keychainctl]"
} > "$deb/usr/share/lintian/overrides/keychainctl"
chmod 0644 "$deb/usr/share/doc/keychainctl/"* "$deb/usr/share/lintian/overrides/keychainctl"
size="$(du -sk --apparent-size "$deb/usr" | cut -f1)"
cat > "$deb/DEBIAN/control" <<CONTROL
Package: keychainctl
Version: $version
Architecture: $debarch
Maintainer: keychainctl maintainers <maintainers@keychainctl.invalid>
Installed-Size: $size
Section: utils
Priority: optional
Description: Apple's data-protection keychain on Linux, as a command
 keychainctl reproduces the semantics of Apple's keychain (SecItemAdd,
 SecItemCopyMatching, SecItemUpdate, SecItemDelete) on an encrypted SQLite
 file, for shell scripts, CI jobs and iOS and macOS developers. Each call acts
 as one app or extension whose entitlements decide what it may read and write.
CONTROL
chmod 0644 "$deb/DEBIAN/control"
(cd "$deb" && find usr -type f | LC_ALL=C sort | xargs md5sum) > "$deb/DEBIAN/md5sums"
chmod 0644 "$deb/DEBIAN/md5sums"

# Every time stamp the commit's; then sorted, numeric-owner archives with no gzip name or time.
find "$stage" -exec touch -h -d "@$epoch" {} +
mkdir -p "$out"
tarball="$name.tar.gz"
debfile="keychainctl_${version}_${debarch}.deb"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" --format=gnu -C "$stage" -cf - "$name" \
    | gzip -9 -n > "$out/$tarball"
dpkg-deb --root-owner-group -Zxz --build "$deb" "$out/$debfile" > /dev/null
(cd "$out" && sha256sum "$tarball" "$debfile" > SHA256SUMS)
echo "$out/$tarball"
echo "$out/$debfile"
echo "$out/SHA256SUMS"
