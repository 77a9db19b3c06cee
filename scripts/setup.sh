#!/usr/bin/env bash
# Installs what building and testing skillsync needs on Debian 12 and is not there yet:
# the C toolchain and libraries (apt; clang and its runtime libraries for the fuzz targets),
# then the reference PDS for the tests (npm, cached outside the checkout by tests/pds/install).
# dpkg-dev (dpkg-shlibdeps: the .deb's dependencies), man-db and groff-base: tests/cmd/package.sh.
# zsh: tests/cmd/zsh_completion.sh loads the zsh completion.
# Safe to run again: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

# libssl-dev is named on purpose: libcrypto does skillsync's signature checks (docs/DEPENDENCIES.md),
# so it must not depend on arriving with libgit2's or libcurl's dependencies. libicu-dev likewise:
# ICU counts graphemes for the lexicons' maxGraphemes limits (core/util/grapheme.c). libpcre2-dev:
# the audit's patterns (core/skill/audit_rules.c). python3-jsonschema: tests/cmd/audit.sh checks
# `audit --sarif` against the SARIF 2.1.0 schema. chromium: tests/cmd/oauth.sh signs in on the
# test PDS's own OAuth page in it, headless (driven by puppeteer-core, tests/pds/package.json).
packages=(build-essential cmake pkg-config git clang-format clang libclang-rt-14-dev time
	libgit2-dev libcurl4-openssl-dev libjansson-dev libyaml-dev libsqlite3-dev libcmocka-dev
	libdeflate-dev libssl-dev
	libicu-dev libpcre2-dev
	dpkg-dev man-db groff-base zsh
	ca-certificates curl python3 python3-jsonschema nodejs npm chromium)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# A machine that already has a newer Node.js (and npm) on PATH keeps it.
if command -v node >/dev/null && command -v npm >/dev/null; then
	missing=("${missing[@]/nodejs/}")
	missing=("${missing[@]/npm/}")
fi
read -r -a missing <<<"${missing[*]}"
if ((${#missing[@]})); then
	echo "setup: installing ${missing[*]}"
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update -q
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
fi

if [ "${1:-}" != "--no-pds" ]; then
	tests/pds/install >/dev/null # prints the install directory, which only start needs
fi
