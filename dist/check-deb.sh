#!/usr/bin/env bash
# The clean install/remove check of the Debian package on a fresh Debian 12 (docs/INSTALL.md):
# on a new Debian 12 base system, apt installs the .deb with its dependencies, the installed
# binary, man page, completions and units are checked, then the package is removed and purged
# and nothing of it may stay.
#     dist/check-deb.sh build/skillsync_0.1.0_amd64.deb            # debootstrap + chroot (root)
#     dist/check-deb.sh --docker build/skillsync_0.1.0_amd64.deb   # a debian:12 container
# The chroot way needs root and debootstrap; it downloads a minimal bookworm (about 50 MB) from
# SS_DEBIAN_MIRROR (default http://deb.debian.org/debian) into a temporary directory, removed
# at the end. The container way uses docker, or CONTAINER_ENGINE (podman).
set -euo pipefail
way=chroot
if [ "${1:-}" = --docker ]; then
	way=docker
	shift
fi
deb=${1:?usage: dist/check-deb.sh [--docker] <skillsync_*.deb>}
[ -f "$deb" ] || { echo "check-deb: no file '$deb'" >&2; exit 1; }
name=$(basename "$deb")

# What runs inside the fresh system, as root, with the .deb in /deb.
inside='
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "/deb/'"$name"'"
	skillsync --version
	skillsync help --commands >/dev/null
	test -f /usr/share/man/man1/skillsync-clone.1
	if command -v man >/dev/null; then
		MANWIDTH=80 man skillsync-clone | grep -q "skillsync-clone - copy a memory space"
	fi
	test -f /usr/share/bash-completion/completions/skillsync
	test -f /usr/share/zsh/vendor-completions/_skillsync
	test -f /usr/lib/systemd/user/skillsync-pull@.timer
	dpkg -L skillsync >/tmp/files
	apt-get remove --purge -y -q skillsync
	apt-get autoremove -y -q --purge
	! dpkg -s skillsync 2>/dev/null | grep -q "^Status: install"
	while read -r f; do [ -d "$f" ] || [ ! -e "$f" ] || { echo "left behind: $f"; exit 1; }; done </tmp/files
	echo "install and remove: clean"
'

if [ "$way" = docker ]; then
	engine=${CONTAINER_ENGINE:-$(command -v docker || command -v podman)}
	dir=$(cd "$(dirname "$deb")" && pwd)
	exec "$engine" run --rm -v "$dir:/deb:ro" debian:12 bash -euxc "$inside"
fi

[ "$(id -u)" = 0 ] || { echo "check-deb: the chroot way needs root (or use --docker)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "check-deb: needs debootstrap (apt-get install debootstrap)" >&2; exit 1; }
mirror=${SS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
root=$(mktemp -d /var/tmp/check-deb.XXXXXX)
cleanup() {
	# Unmount before removing, so that rm never walks into the host's /proc or /dev.
	for m in dev/pts proc; do
		if mountpoint -q "$root/$m"; then umount "$root/$m"; fi
	done
	if ! grep -q " $root/" /proc/mounts; then rm -rf "$root"; fi
}
trap cleanup EXIT
# minbase: apt and dpkg only; man-db so that `man skillsync-clone` is checked as a user runs it.
debootstrap --variant=minbase --include=man-db bookworm "$root" "$mirror" >"$root.log" 2>&1 ||
	{ tail -20 "$root.log" >&2; rm -f "$root.log"; exit 1; }
rm -f "$root.log"
mount -t proc proc "$root/proc"
mount -t devpts devpts "$root/dev/pts"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/deb"
cp "$deb" "$root/deb/"
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
	bash -euxc "$inside"
