#!/usr/bin/env bash
# needs: pds
# Progress lines: on a terminal, clone and pull (records received, files checked out) and push
# (skills written, request by request) show one updating line on stderr ("\r" and the counts);
# when stderr is not a terminal, or with --quiet, none. The terminal is a pty from script(1).
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
n=$(git -C tty-clone ls-files | wc -l)
grep -q $'\rChecking out files: 100% ('"$n/$n)" <<<"$out" || fail "no checkout progress ($n files): $out"

ss_run 0 "$SKILLSYNC" clone "$auth" pipe-clone
! grep -q $'\r' "$work/stderr" || fail "progress when stderr is not a terminal: $(cat -A "$work/stderr")"
grep -q "^Cloning into 'pipe-clone'" "$work/stderr" || fail "clone: $(cat "$work/stderr")"

out=$(on_tty "'$SKILLSYNC' clone --quiet '$auth' quiet-clone")
! grep -q -e $'\r' -e Receiving -e Cloning <<<"$out" || fail "progress with --quiet: $out"
grep -q "^Cloned 1 skill from" <<<"$out" || fail "clone --quiet: $out"

out=$(cd tty-clone && on_tty "'$SKILLSYNC' pull --quiet")
[ -z "$out" ] || fail "pull --quiet on a terminal printed: $out"

# push of many: 210 new skills go in two requests (200 + 10), the line moving with each.
cd "$work/space"
python3 -c '
import os
for i in range(210):
    n = f"many-{i:03d}"
    os.makedirs(n)
    open(f"{n}/SKILL.md", "w").write(f"---\nname: {n}\ndescription: Skill {i}.\n---\n# {n}\n")
'
"$SKILLSYNC" commit -m many >/dev/null
out=$(on_tty "'$SKILLSYNC' push")
grep -q $'\rWriting skills:   0% (0/210)\rWriting skills:  95% (200/210)\rWriting skills: 100% (210/210)' <<<"$out" ||
	fail "push progress on a terminal: $(cat -A <<<"$out" | head -3)"
grep -q "^pushed 210 changes in 2 requests" <<<"$out" || fail "push on a terminal: $out"

sed -i 's/^# many-000$/# many-000 changed/' many-000/SKILL.md
"$SKILLSYNC" commit -m one >/dev/null
ss_run 0 "$SKILLSYNC" push
[ ! -s "$work/stderr" ] || fail "push wrote to stderr when not a terminal: $(cat -A "$work/stderr")"

sed -i 's/^# many-001$/# many-001 changed/' many-001/SKILL.md
"$SKILLSYNC" commit -m two >/dev/null
out=$(on_tty "'$SKILLSYNC' push --quiet")
! grep -q -e $'\r' -e Writing <<<"$out" || fail "push progress with --quiet: $out"
grep -q "^pushed 1 change in 1 request" <<<"$out" || fail "push --quiet: $out"

# pull of many: the merge writes the 210 new skills, the line moving with them; none when
# stderr is not a terminal.
out=$(cd "$work/tty-clone" && on_tty "'$SKILLSYNC' pull")
grep -q $'\rReceiving skills: [0-9]* records, 1/[0-9]* members' <<<"$out" ||
	fail "no fetch progress in pull on a terminal: $(cat -A <<<"$out" | tail -3)"
grep -q $'\rChecking out files: 100% (210/210)' <<<"$out" ||
	fail "no checkout progress in pull on a terminal: $(cat -A <<<"$out" | tail -3)"
cd "$work/pipe-clone"
ss_run 0 "$SKILLSYNC" pull
! grep -q $'\r' "$work/stderr" || fail "pull progress when stderr is not a terminal: $(cat -A "$work/stderr")"
