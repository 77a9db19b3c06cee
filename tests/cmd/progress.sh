#!/usr/bin/env bash
# needs: pds
# Progress lines: on a terminal, clone and pull show one updating line on stderr ("\r" and
# the counts); when stderr is not a terminal, or with --quiet, none. The terminal is a pty
# from script(1).
set -euo pipefail
. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
unset SKILLSYNC_LOCK_WAIT SKILLSYNC_TEST_CRASH

ss_sandbox
ss_push_fixture # ./space, me's clone of auth's space
cd "$work"
auth=$(ss_json "$work/auth.json" handle)
# on_tty <command line>: its output on a pty, without the "\r" the pty puts before each "\n".
on_tty() { script -qec "$1" /dev/null </dev/null | sed 's/\r$//'; }

out=$(on_tty "'$SKILLSYNC' clone '$auth' tty-clone")
grep -q $'\rReceiving skills: [0-9]* records, 1/[0-9]* members' <<<"$out" || fail "no progress on a terminal: $out"
grep -q "Cloning into 'tty-clone'" <<<"$out" || fail "clone on a terminal: $out"

ss_run 0 "$SKILLSYNC" clone "$auth" pipe-clone
! grep -q $'\r' "$work/stderr" || fail "progress when stderr is not a terminal: $(cat -A "$work/stderr")"
grep -q "^Cloning into 'pipe-clone'" "$work/stderr" || fail "clone: $(cat "$work/stderr")"

out=$(on_tty "'$SKILLSYNC' clone --quiet '$auth' quiet-clone")
! grep -q -e $'\r' -e Receiving -e Cloning <<<"$out" || fail "progress with --quiet: $out"
grep -q "^Cloned 1 skill from" <<<"$out" || fail "clone --quiet: $out"

out=$(cd tty-clone && on_tty "'$SKILLSYNC' pull --quiet")
[ -z "$out" ] || fail "pull --quiet on a terminal printed: $out"
