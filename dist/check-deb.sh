#!/usr/bin/env bash
# The clean install/remove check of the Debian package on a fresh Debian 12 (docs/INSTALL.md):
# in a new debian:12 container, apt installs the .deb with its dependencies, the installed
# binary, man page, completion and units are checked, then the package is removed and purged
# and nothing of it may stay.
#     dist/check-deb.sh build/skillsync_0.1.0_amd64.deb        # docker, or podman
set -euo pipefail
deb=${1:?usage: dist/check-deb.sh <skillsync_*.deb>}
engine=${CONTAINER_ENGINE:-$(command -v docker || command -v podman)}
dir=$(cd "$(dirname "$deb")" && pwd)
"$engine" run --rm -v "$dir:/deb:ro" debian:12 bash -euxc '
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "/deb/'"$(basename "$deb")"'"
	skillsync --version
	skillsync help --commands >/dev/null
	test -f /usr/share/man/man1/skillsync-clone.1
	test -f /usr/share/bash-completion/completions/skillsync
	test -f /usr/lib/systemd/user/skillsync-pull@.timer
	dpkg -L skillsync >/tmp/files
	apt-get purge -y -q skillsync
	apt-get autoremove -y -q --purge
	! dpkg -s skillsync 2>/dev/null | grep -q "^Status: install"
	while read -r f; do [ -d "$f" ] || [ ! -e "$f" ] || { echo "left behind: $f"; exit 1; }; done </tmp/files
	echo "install and remove: clean"
'
