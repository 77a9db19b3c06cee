#!/usr/bin/env bash
# End to end: usage errors. Every command answers a bad option with one line on stderr and
# exit status 129, outside a clone too (options are parsed before the clone is opened);
# --help works everywhere; a valid command that needs a clone says it is not in one (exit 1).
set -euo pipefail

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/plain" "$tmp/gitrepo"
git init -q "$tmp/gitrepo"
export SKILLSYNC_CONFIG_HOME="$tmp/config"

# run <dir> <want-exit> <args>...: runs skillsync in <dir>, output in $tmp/out and $tmp/err.
run() {
	local dir=$1 want=$2 rc
	shift 2
	set +e
	(cd "$dir" && "$SKILLSYNC" "$@" </dev/null >"$tmp/out" 2>"$tmp/err")
	rc=$?
	set -e
	[ "$rc" = "$want" ] || fail "'skillsync $*' in $dir: exit $rc, want $want: $(cat "$tmp/err")"
}

# one_line <what>: stderr is exactly one line and stdout is empty.
one_line() {
	[ "$(wc -l <"$tmp/err")" = 1 ] || fail "$1: want one line on stderr, got: $(cat "$tmp/err")"
	[ ! -s "$tmp/out" ] || fail "$1: printed on stdout: $(cat "$tmp/out")"
}

# Every command of the table, from the help's command list (a new command is checked too).
commands=$("$SKILLSYNC" --help | sed -n 's/^   \([a-z]\+\) .*/\1/p')
[ "$(echo "$commands" | wc -l)" -ge 16 ] || fail "command list: $commands"
for dir in "$tmp/plain" "$tmp/gitrepo"; do
	for c in $commands; do
		run "$dir" 129 "$c" --frob
		one_line "$c --frob"
		if [ "$c" = help ]; then
			grep -qx "skillsync: '--frob' is not a skillsync command (see 'skillsync --help')" \
				"$tmp/err" || fail "help --frob: $(cat "$tmp/err")"
		else
			grep -qx "skillsync $c: unknown option '--frob' (see 'skillsync $c --help')" \
				"$tmp/err" || fail "$c --frob: $(cat "$tmp/err")"
		fi
		run "$dir" 0 "$c" --help
		head -n1 "$tmp/out" | grep -q "^usage: skillsync $c" || fail "$c --help: $(cat "$tmp/out")"
	done
done

# Missing or extra arguments are usage errors before the clone is looked for, too.
run "$tmp/plain" 129 show
one_line "show without a name"
run "$tmp/plain" 129 members add
one_line "members add without a handle"
run "$tmp/plain" 129 log -n
one_line "log -n without a number"
run "$tmp/plain" 129 ls extra
grep -qx "skillsync ls: unexpected argument 'extra' (see 'skillsync ls --help')" "$tmp/err" ||
	fail "ls extra: $(cat "$tmp/err")"

# Valid commands that need a clone: one line saying there is none, exit 1, nothing written.
for args in ls "show pdf" status commit diff "diff --stat" push "push --dry-run" members \
	"members add someone.test" fetch pull log; do
	# shellcheck disable=SC2086 # the words of $args are the arguments
	run "$tmp/plain" 1 $args
	one_line "$args outside a clone"
	grep -qx "skillsync: not a skillsync clone (or any of the parent directories)" "$tmp/err" ||
		fail "$args outside a clone: $(cat "$tmp/err")"
	# shellcheck disable=SC2086
	run "$tmp/gitrepo" 1 $args
	one_line "$args in a git repository"
	grep -qx "skillsync: '.*' is a git repository but not a skillsync clone" "$tmp/err" ||
		fail "$args in a git repository: $(cat "$tmp/err")"
	# ... and leaves that repository as it was: no state created in it.
	[ ! -e "$tmp/gitrepo/.git/skillsync" ] || fail "$args created .git/skillsync in a git repository"
done

# Unknown commands and options of skillsync itself.
run "$tmp/plain" 129 frob
one_line "frob"
run "$tmp/plain" 129 --frob
one_line "--frob"
echo "usage: ok"
