#!/usr/bin/env bash
# needs: pds
# skillsync config (docs/CONFIG.md): keys and values checked, the per-user file, and the order
# environment > clone > per-user > default seen in what commands do (the agents `link` uses,
# pull's merge style, colour); colour on status, diff, log and ls: --color=always colours,
# piped output and NO_COLOR do not.
set -euo pipefail
. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
unset CLAUDE_CONFIG_DIR CODEX_HOME XDG_CONFIG_HOME NO_COLOR SKILLSYNC_TIMEOUT SKILLSYNC_PULL_FF \
	SKILLSYNC_LINK_AGENTS SKILLSYNC_COLOR SKILLSYNC_PROGRESS SKILLSYNC_LOCK_WAIT

ss_sandbox
esc=$(printf '\033')

# Keys and values: refused with the list of keys, or what the key takes.
ss_run 1 "$SKILLSYNC" config --global nosuch 1
grep -q "unknown key 'nosuch' (one of: timeout, pull.ff, link.agents, color, progress, review.policy, review.trust, mcp.push)" "$work/stderr" ||
	fail "unknown key: $(cat "$work/stderr")"
ss_run 1 "$SKILLSYNC" config --global color blue
grep -q "'color' takes auto, always or never, not 'blue'" "$work/stderr" || fail "bad value: $(cat "$work/stderr")"
ss_run 1 "$SKILLSYNC" config --global timeout 0
[ ! -e "$SKILLSYNC_CONFIG_HOME/config" ] || fail "a refused value was written"
# The per-user file: one line a key, mode 0644; reading it alone; --unset.
ss_run 0 "$SKILLSYNC" config --global timeout 30
ss_run 0 "$SKILLSYNC" config --global timeout 45
[ "$(cat "$SKILLSYNC_CONFIG_HOME/config")" = "timeout = 45" ] || fail "file: $(cat "$SKILLSYNC_CONFIG_HOME/config")"
[ "$(stat -c %a "$SKILLSYNC_CONFIG_HOME/config")" = 644 ] || fail "mode $(stat -c %a "$SKILLSYNC_CONFIG_HOME/config")"
ss_run 0 "$SKILLSYNC" config timeout
[ "$(cat "$work/stdout")" = 45 ] || fail "timeout outside a clone: $(cat "$work/stdout")"
ss_run 0 "$SKILLSYNC" config --global --unset timeout
ss_run 1 "$SKILLSYNC" config --global timeout
[ ! -s "$work/stdout" ] || fail "an unset key printed: $(cat "$work/stdout")"
# A bad value in the file is named where it is, not ignored.
echo "timeout = soon" >"$SKILLSYNC_CONFIG_HOME/config"
SKILLSYNC_PASSWORD=x ss_run 1 "$SKILLSYNC" login nobody.test
grep -q "'timeout' in the per-user config is 'soon': want whole seconds from 1 to 3600" "$work/stderr" || fail "bad file value: $(cat "$work/stderr")"
rm "$SKILLSYNC_CONFIG_HOME/config"

ss_push_fixture # ./space: the clone, with the authority's skills
export HOME=$work/home
mkdir -p "$HOME"
space=$work/space

# link.agents: which folders `link` fills, from each level in turn.
linked() { # linked <project>: the skills folders link made there, sorted
	(cd "$1" && find . -mindepth 2 -maxdepth 2 -name skills -type d | sort | tr '\n' ' ')
}
link_in() { mkdir -p "$work/p$1" && ss_run 0 "$SKILLSYNC" link --project "$work/p$1"; }
link_in 1
[ "$(linked "$work/p1")" = "./.agents/skills ./.claude/skills " ] || fail "default agents: $(linked "$work/p1")"
ss_run 0 "$SKILLSYNC" config --global link.agents claude
link_in 2
[ "$(linked "$work/p2")" = "./.claude/skills " ] || fail "per-user agents: $(linked "$work/p2")"
ss_run 0 "$SKILLSYNC" config link.agents agents
[ ! -e "$work/space/.skillsync" ] || fail "a second file beside the clone"
link_in 3
[ "$(linked "$work/p3")" = "./.agents/skills " ] || fail "clone's agents: $(linked "$work/p3")"
SKILLSYNC_LINK_AGENTS=claude link_in 4
[ "$(linked "$work/p4")" = "./.claude/skills " ] || fail "environment's agents: $(linked "$work/p4")"
ss_run 0 "$SKILLSYNC" config link.agents
[ "$(cat "$work/stdout")" = agents ] || fail "config link.agents: $(cat "$work/stdout")"
ss_run 0 "$SKILLSYNC" config --global link.agents nosuch
mkdir -p "$work/p5"
ss_run 0 "$SKILLSYNC" link --project "$work/p5" # the clone's value hides the bad per-user one
ss_run 0 "$SKILLSYNC" config --unset link.agents
ss_run 1 "$SKILLSYNC" link --project "$work/p5"
grep -q "unknown agent 'nosuch' in the link.agents setting" "$work/stderr" || fail "bad agent: $(cat "$work/stderr")"
ss_run 0 "$SKILLSYNC" config --global --unset link.agents
ss_run 0 "$SKILLSYNC" config --list --global
[ ! -s "$work/stdout" ] || fail "unset keys listed: $(cat "$work/stdout")"

# timeout: a server that never answers; each run must give up after the 1 s its winning
# level says, not after the 60 s of the level below (members add resolves the handle first).
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
conns = []
while True: conns.append(s.accept()[0])
' >"$work/port" &
hang=$!
trap 'kill $hang 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
slow() { # slow <env...>: members add through the silent server; fails unless it gives up in < 10 s
	local t0=$SECONDS
	env SKILLSYNC_HANDLE_RESOLVER="http://127.0.0.1:$(cat "$work/port")" "$@" \
		timeout 20 "$SKILLSYNC" members add someone.test >"$work/stdout" 2>"$work/stderr" && fail "members add passed"
	[ $((SECONDS - t0)) -lt 10 ] || fail "gave up after $((SECONDS - t0)) s: $(cat "$work/stderr")"
	grep -qi "timeout\|timed out" "$work/stderr" || fail "not a timeout: $(cat "$work/stderr")"
}
ss_run 0 "$SKILLSYNC" config --global timeout 1
slow # the per-user value over the default
ss_run 0 "$SKILLSYNC" config --global timeout 60
ss_run 0 "$SKILLSYNC" config timeout 1
slow # the clone's over the per-user one
ss_run 0 "$SKILLSYNC" config timeout 60
slow SKILLSYNC_TIMEOUT=1 # the environment over the clone's
ss_run 0 "$SKILLSYNC" config --unset timeout
ss_run 0 "$SKILLSYNC" config --global --unset timeout
kill $hang

# pull.ff=only: a pull that needs a merge stops, unless the environment says otherwise.
ss_skill mine "local"
ss_run 0 "$SKILLSYNC" commit -m "mine"
ss_auth_change "from the authority"
ss_run 0 "$SKILLSYNC" config pull.ff only
ss_run 1 "$SKILLSYNC" pull
grep -qi "fast-forward" "$work/stderr" || fail "pull.ff=only pull: $(cat "$work/stderr")"
SKILLSYNC_PULL_FF=true ss_run 0 "$SKILLSYNC" pull
grep -q "from the authority" pdf-forms/SKILL.md || fail "the merge did not happen"

# Colour: none when piped; --color=always colours; NO_COLOR beats the setting, not the flag.
echo "edit" >>mine/SKILL.md
for c in status diff log ls; do
	ss_run 0 "$SKILLSYNC" $c
	! grep -q "$esc\[" "$work/stdout" || fail "$c piped has colour"
	ss_run 0 "$SKILLSYNC" $c --color=always
	grep -q "$esc\[" "$work/stdout" || fail "$c --color=always has none: $(cat "$work/stdout")"
done
ss_run 0 "$SKILLSYNC" diff --color=always
grep -q "^$esc\[32m+edit$esc\[m$" "$work/stdout" || fail "diff's added line not green: $(cat -v "$work/stdout")"
ss_run 0 "$SKILLSYNC" status --color=always
grep -q "$esc\[31mmodified  mine/$esc\[m" "$work/stdout" || fail "status not red: $(cat -v "$work/stdout")"
ss_run 0 "$SKILLSYNC" config color always
ss_run 0 "$SKILLSYNC" log
grep -q "$esc\[33mcommit " "$work/stdout" || fail "color=always setting: $(cat -v "$work/stdout")"
NO_COLOR=1 ss_run 0 "$SKILLSYNC" log
! grep -q "$esc\[" "$work/stdout" || fail "NO_COLOR not honoured"
NO_COLOR=1 ss_run 0 "$SKILLSYNC" log --color=always
grep -q "$esc\[" "$work/stdout" || fail "--color=always under NO_COLOR"
SKILLSYNC_COLOR=never ss_run 0 "$SKILLSYNC" ls
! grep -q "$esc\[" "$work/stdout" || fail "SKILLSYNC_COLOR=never not honoured"
ss_run 0 "$SKILLSYNC" ls --no-color
! grep -q "$esc\[" "$work/stdout" || fail "--no-color"
ss_run 129 "$SKILLSYNC" ls --color=sometimes

# On a terminal (a pty from script(1)): colour by default (auto), none under NO_COLOR or
# TERM=dumb; progress lines unless the progress setting says never.
ss_run 0 "$SKILLSYNC" config --unset color
on_tty() { script -qec "$1" /dev/null </dev/null; }
out=$(TERM=xterm on_tty "'$SKILLSYNC' ls")
grep -q "$esc\[1mpdf-forms" <<<"$out" || fail "no colour on a terminal: $(cat -v <<<"$out")"
out=$(TERM=xterm NO_COLOR=1 on_tty "'$SKILLSYNC' ls")
! grep -q "$esc\[" <<<"$out" || fail "NO_COLOR on a terminal: $(cat -v <<<"$out")"
out=$(TERM=dumb on_tty "'$SKILLSYNC' ls")
! grep -q "$esc\[" <<<"$out" || fail "TERM=dumb: $(cat -v <<<"$out")"
cd "$work"
auth=$(ss_json "$work/auth.json" handle)
out=$(on_tty "'$SKILLSYNC' clone '$auth' c1")
grep -q $'\rReceiving skills' <<<"$out" || fail "no progress on a terminal: $out"
ss_run 0 "$SKILLSYNC" config --global progress never
out=$(on_tty "'$SKILLSYNC' clone '$auth' c2")
! grep -q $'\rReceiving' <<<"$out" || fail "progress=never: $out"
grep -q "Cloning into 'c2'" <<<"$out" || fail "clone c2: $out"
echo "ok"
