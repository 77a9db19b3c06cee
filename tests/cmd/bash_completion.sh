#!/usr/bin/env bash
# The bash completion (dist/completions/skillsync.bash) against hostile directory names: a
# repository whose skill directories are named `$(touch PWNED)` and `` `touch PWNED2` ``
# (each holding a SKILL.md). Completing a skill name there runs nothing, and offers the names
# as literal words, quoted for the command line, inside a skillsync clone (its git directory
# holds skillsync/state.db); in a git repository that is not a clone it offers none. The
# commands and options still complete. (The install and the usual names: tests/cmd/package.sh;
# zsh: tests/cmd/zsh_completion.sh.)
set -euo pipefail
. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
completion=$SS_SOURCE_DIR/dist/completions/skillsync.bash

# complete_bash <dir> <words>...: what completing the last word of `skillsync <words>` offers
# in <dir>, one a line.
complete_bash() {
	local dir=$1
	shift
	(cd "$dir" && bash --norc --noprofile -c '
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_skillsync
		((${#COMPREPLY[@]})) && printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort
		true
	' _ "$completion" "$SKILLSYNC" "$@")
}

# Two repositories with the same skill directories: a clone and a plain git repository.
for repo in clone plain; do
	r=$tmp/$repo
	mkdir -p "$r/notes"
	for name in '$(touch PWNED)' '`touch PWNED2`' 'pdf-forms' "it's"; do
		mkdir -p "$r/$name"
		touch "$r/$name/SKILL.md"
	done
	git -C "$r" init -q
done
# What makes a clone for the completion: the state database in its git directory.
mkdir -p "$tmp/clone/.git/skillsync"
touch "$tmp/clone/.git/skillsync/state.db"

pwned() { find "$tmp" -name 'PWNED*' | grep -q . ; }

got=$(complete_bash "$tmp/clone/notes" show '')
pwned && fail "completing a skill name ran a directory's name: $(find "$tmp" -name 'PWNED*')"
want=$(printf '%s\n' '$(touch PWNED)' '`touch PWNED2`' 'pdf-forms' "it's" |
	while IFS= read -r n; do printf '%q\n' "$n"; done | LC_ALL=C sort)
[ "$got" = "$want" ] || fail "completing any skill name in a clone: '$got', want '$want'"
# Each offered word, read back as the shell reads a command line, is the directory's name.
while IFS= read -r w; do
	eval "set -- $w"
	[ $# = 1 ] && [ -f "$tmp/clone/$1/SKILL.md" ] || fail "'$w' is not a skill directory's name"
done <<<"$got"
pwned && fail "reading the offered words ran something"

# By prefix, as typed: literally, or already quoted.
got=$(complete_bash "$tmp/clone" diff '$(to')
[ "$got" = '\$\(touch\ PWNED\)' ] || fail "completing '\$(to': '$got'"
got=$(complete_bash "$tmp/clone" commit '\$\(to')
[ "$got" = '\$\(touch\ PWNED\)' ] || fail "completing '\\\$\\(to': '$got'"
got=$(complete_bash "$tmp/clone" log '`')
[ "$got" = '\`touch\ PWNED2\`' ] || fail "completing '\`': '$got'"
got=$(complete_bash "$tmp/clone" show pd)
[ "$got" = pdf-forms ] || fail "completing 'pd': '$got'"
# Every command that takes skill names completes them (the review gate's too).
for c in audit review accept reject pin unpin; do
	got=$(complete_bash "$tmp/clone/notes" "$c" pd) # (in notes/: no file there begins with pd)
	[ "$got" = pdf-forms ] || fail "completing '$c pd': '$got'"
done
pwned && fail "completing a prefix ran a directory's name"

# A git repository that is not a skillsync clone: no skill names at all.
got=$(complete_bash "$tmp/plain" show '')
[ -z "$got" ] || fail "skill names outside a clone: '$got'"
got=$(complete_bash "$tmp" show '')
[ -z "$got" ] || fail "skill names outside any repository: '$got'"
pwned && fail "completing outside a clone ran a directory's name"

# Commands and options (from the binary) still complete.
got=$(complete_bash "$tmp/clone" pu)
[ "$got" = "$(printf 'pull\npush')" ] || fail "completing 'pu': '$got'"
got=$(complete_bash "$tmp/clone" pull --f)
[ "$got" = --ff-only ] || fail "completing 'pull --f': '$got'"
got=$(complete_bash "$tmp/clone" help lo)
[ "$got" = "$(printf 'log\nlogin\nlogout')" ] || fail "completing 'help lo': '$got'"
echo ok
