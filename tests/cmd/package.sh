#!/usr/bin/env bash
# build: plain
# The install and the Debian package (docs/INSTALL.md): `cmake --install` into a prefix puts
# the binary, a man page per command of the table that renders without a warning, the bash
# and zsh completions and the systemd units; `man skillsync-clone` works with MANPATH; the
# bash completion completes a command, an option and a skill name; `--version` names the
# commit. Then `cpack -G DEB` builds the .deb, which is inspected (dpkg-deb -I/-c/-x: its
# dependencies computed by dpkg-shlibdeps, the files in /usr, the extracted binary runs) and
# resolved by `apt-get install --simulate`.
set -euo pipefail
. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build=$(dirname "$SKILLSYNC")
prefix=$tmp/prefix

# --version: the version and the commit of the checkout it was built from (a commit the
# checkout has; "unknown" outside git).
version=$("$SKILLSYNC" --version)
if git -C "$SS_SOURCE_DIR" rev-parse --git-dir >/dev/null 2>&1; then
	[[ $version =~ ^skillsync\ [0-9.]+\ \(commit\ ([0-9a-f]{12})(-dirty)?\)$ ]] || fail "--version says '$version'"
	git -C "$SS_SOURCE_DIR" cat-file -e "${BASH_REMATCH[1]}^{commit}" 2>/dev/null ||
		fail "--version names ${BASH_REMATCH[1]}, not a commit of the checkout"
else
	[[ $version =~ ^skillsync\ [0-9.]+\ \(commit\ unknown\)$ ]] || fail "--version says '$version'"
fi

cmake --install "$build" --prefix "$prefix" >/dev/null
[ -x "$prefix/bin/skillsync" ] || fail "no bin/skillsync"
"$prefix/bin/skillsync" --version | grep -qx "$version" || fail "the installed binary differs"
[ -f "$prefix/share/bash-completion/completions/skillsync" ] || fail "no bash completion"
[ -f "$prefix/share/zsh/vendor-completions/_skillsync" ] || fail "no zsh completion"
for u in skillsync-pull@.service skillsync-pull@.timer; do
	[ -f "$prefix/lib/systemd/user/$u" ] || fail "no $u"
done
[ ! -e "$prefix/bin/ss-fill" ] || fail "the test tool ss-fill is installed"

# A man page per command the table lists (and skillsync.1), each rendering with no warning.
man1=$prefix/share/man/man1
for name in "" $("$SKILLSYNC" help --commands); do
	page=$man1/skillsync${name:+-$name}.1
	[ -f "$page" ] || fail "no man page for '${name:-skillsync}'"
	warnings=$(groff -ww -man -Tutf8 -z "$page" 2>&1)
	[ -z "$warnings" ] || fail "groff warns on $page: $warnings"
done
[ "$(find "$man1" -name '*.1' | wc -l)" = $(($("$SKILLSYNC" help --commands | wc -l) + 1)) ] ||
	fail "man pages that are not commands: $(ls "$man1")"
out=$(MANPATH=$prefix/share/man MANWIDTH=100 man skillsync-clone 2>&1) || fail "man skillsync-clone: $out"
grep -q 'skillsync-clone - copy a memory space' <<<"$out" || fail "man skillsync-clone shows: $out"
grep -q -- '--member <h>' <<<"$out" || fail "the man page lacks the options: $out"
# The page says what --help says: every option of the help text is in it.
for o in $("$SKILLSYNC" help --options push | grep -vx -- --help); do
	man -l "$man1/skillsync-push.1" 2>/dev/null | grep -q -- "$o" || fail "push's man page lacks $o"
done

# The systemd units parse (the binary is not in systemd's search path here: that line only).
cp "$prefix/lib/systemd/user/skillsync-pull@.service" "$tmp/skillsync-pull@home-me-skills.service"
cp "$prefix/lib/systemd/user/skillsync-pull@.timer" "$tmp/skillsync-pull@home-me-skills.timer"
if command -v systemd-analyze >/dev/null; then
	out=$(cd "$tmp" && MANPATH=$prefix/share/man systemd-analyze verify \
		"skillsync-pull@home-me-skills.timer" "skillsync-pull@home-me-skills.service" 2>&1 |
		grep -v 'Command skillsync is not executable' || true)
	[ -z "$out" ] || fail "systemd-analyze verify: $out"
fi

# bash completion: commands, options, skill names in a clone (a git working tree whose git
# directory holds skillsync/state.db, whose top-level directories hold SKILL.md; hostile
# names: tests/cmd/bash_completion.sh).
complete_line() { # <words>...: what completing the last word offers, one a line
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _skillsync; printf "%s\n" "${COMPREPLY[@]}" | sort' \
		_ "$prefix/share/bash-completion/completions/skillsync" "$@"
}
export PATH="$prefix/bin:$PATH"
[ "$(complete_line skillsync pu)" = "$(printf 'pull\npush')" ] || fail "completing 'pu': $(complete_line skillsync pu)"
[ "$(complete_line skillsync pull --f)" = "--ff-only" ] || fail "completing 'pull --f': $(complete_line skillsync pull --f)"
mkdir -p "$tmp/clone/pdf-forms" "$tmp/clone/pdf-tools" "$tmp/clone/.github" "$tmp/clone/notes"
touch "$tmp/clone/pdf-forms/SKILL.md" "$tmp/clone/pdf-tools/SKILL.md"
git -C "$tmp/clone" init -q
mkdir "$tmp/clone/.git/skillsync" && touch "$tmp/clone/.git/skillsync/state.db"
got=$(cd "$tmp/clone/notes" && complete_line skillsync show pd)
[ "$got" = "$(printf 'pdf-forms\npdf-tools')" ] || fail "completing a skill name: '$got'"

# The Debian package: cpack over this build, into a directory of its own.
deb_dir=$tmp/deb
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$deb_dir" >"$tmp/cpack.log" 2>&1 ||
	fail "cpack -G DEB: $(cat "$tmp/cpack.log")"
debs=("$deb_dir"/skillsync_*.deb)
[ ${#debs[@]} = 1 ] && [ -f "${debs[0]}" ] || fail "cpack made: $(ls "$deb_dir")"
deb=${debs[0]}
info=$(dpkg-deb -I "$deb")
grep -q '^ Package: skillsync$' <<<"$info" || fail "dpkg-deb -I: $info"
# Depends: computed by dpkg-shlibdeps from the libraries the binary links, with versions, and
# libcurl4 and ICU besides: the binary loads libcurl when it first talks to the network
# (sync/net/curl.c) and ICU when it first counts graphemes (core/util/grapheme.c), so that a
# command that does neither starts without them.
needed=$(readelf -d "$build/skillsync") || fail "readelf -d: $needed"
! grep -qE 'NEEDED.*(libcurl|libicu)' <<<"$needed" || fail "the binary links libcurl or ICU: $needed"
depends=$(sed -n 's/^ Depends: //p' <<<"$info")
for lib in libc6 libcurl4 libicu libgit2 libjansson4 libsqlite3 libyaml; do
	grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib: '$depends'"
done
grep -q '(>= ' <<<"$depends" || fail "Depends has no versions: '$depends'"
contents=$(dpkg-deb -c "$deb")
for f in ./usr/bin/skillsync ./usr/share/man/man1/skillsync-clone.1 \
	./usr/share/bash-completion/completions/skillsync \
	./usr/share/zsh/vendor-completions/_skillsync ./usr/lib/systemd/user/skillsync-pull@.timer; do
	grep -q " $f\$" <<<"$contents" || fail "the package lacks $f"
done
! grep -v ' \./usr/' <<<"$contents" | grep -q . || fail "files outside /usr: $contents"
dpkg-deb -x "$deb" "$tmp/x"
[ "$("$tmp/x/usr/bin/skillsync" --version)" = "$("$SKILLSYNC" --version)" ] || fail "the packaged binary says $("$tmp/x/usr/bin/skillsync" --version)"
out=$(apt-get install --simulate "$deb" 2>&1) || fail "apt-get install --simulate: $out"
grep -q '^Inst skillsync ' <<<"$out" || fail "apt-get install --simulate: $out"
