#!/usr/bin/env bash
# needs: pds
# login, whoami and logout end to end, against the test PDS, in a private config directory.
set -euo pipefail

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SKILLSYNC_CONFIG_HOME="$tmp/config"
unset SKILLSYNC_PASSWORD XDG_CONFIG_HOME

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"

ss_pds_env
ss_accounts "$tmp" "" login
mv "$tmp/login.json" "$tmp/acct.json"
handle=$(ss_json "$tmp/acct.json" handle)
did=$(ss_json "$tmp/acct.json" did)
pw=$(ss_json "$tmp/acct.json" password)
export HOME="$tmp/home" # skillsync never sees the real one (set after the PDS tools ran)
sessions="$SKILLSYNC_CONFIG_HOME/sessions"
log="$tmp/out.log" # everything skillsync prints, to look for the password afterwards

run() { # run <expected exit> <args...>: stdout in $tmp/stdout, stderr in $tmp/stderr
	local want=$1 rc=0
	shift
	"$@" >"$tmp/stdout" 2>"$tmp/stderr" || rc=$?
	cat "$tmp/stdout" "$tmp/stderr" >>"$log"
	[ "$rc" = "$want" ] || fail "'$*' exited $rc, not $want: $(cat "$tmp/stderr")"
}

# Signing in with the password in the environment.
SKILLSYNC_PASSWORD=$pw run 0 "$SKILLSYNC" login "$handle"
grep -qx "signed in as $handle ($did) on $pds" "$tmp/stdout" || fail "login said: $(cat "$tmp/stdout")"
[ "$(stat -c %a "$sessions")" = 700 ] || fail "sessions directory is not 0700"
[ "$(stat -c %a "$sessions/$did.session")" = 600 ] || fail "session file is not 0600"

run 0 "$SKILLSYNC" whoami
[ "$(cat "$tmp/stdout")" = "$handle $did $pds password" ] || fail "whoami said: $(cat "$tmp/stdout")"
run 0 "$SKILLSYNC" whoami --json
[ "$(cat "$tmp/stdout")" = "[{\"did\":\"$did\",\"handle\":\"$handle\",\"pds\":\"$pds\",\"session\":\"password\",\"scope\":null}]" ] ||
	fail "whoami --json said: $(cat "$tmp/stdout")"

# Signing out forgets the session.
run 0 "$SKILLSYNC" logout
grep -qx "signed out of $handle ($did)" "$tmp/stdout" || fail "logout said: $(cat "$tmp/stdout")"
[ ! -e "$sessions/$did.session" ] || fail "logout left the session file"
run 5 "$SKILLSYNC" whoami
[ "$(cat "$tmp/stderr")" = "skillsync: not signed in (run 'skillsync login <handle>')" ] ||
	fail "whoami without a session said: $(cat "$tmp/stderr")"

# The password from stdin.
printf '%s\n' "$pw" >"$tmp/pw"
run 0 "$SKILLSYNC" login --password-stdin "$did" <"$tmp/pw"
rm "$tmp/pw"
run 0 "$SKILLSYNC" whoami
[ "$(cat "$tmp/stdout")" = "$handle $did $pds password" ] || fail "whoami after stdin login: $(cat "$tmp/stdout")"

# A wrong password: exit 5 and one line; the kept session stays.
SKILLSYNC_PASSWORD=wrong-password run 5 "$SKILLSYNC" login "$handle"
[ "$(wc -l <"$tmp/stderr")" = 1 ] || fail "wrong password printed more than one line"
grep -q "^skillsync: cannot sign in as '$handle': .*Invalid identifier or password$" "$tmp/stderr" ||
	fail "wrong password said: $(cat "$tmp/stderr")"

# No password and no terminal: fails at once, never waits.
run 5 timeout 20 setsid -w "$SKILLSYNC" login "$handle" </dev/null
grep -q "no password: set SKILLSYNC_PASSWORD or use --password-stdin" "$tmp/stderr" ||
	fail "login without a password said: $(cat "$tmp/stderr")"

# Never from argv.
run 129 "$SKILLSYNC" login --password "$pw" "$handle"

# An unreachable resolver: exit 4, one line, no hang.
start=$(date +%s)
SKILLSYNC_PASSWORD=x SKILLSYNC_HANDLE_RESOLVER=http://127.0.0.1:1 run 4 "$SKILLSYNC" login "$handle"
[ $(($(date +%s) - start)) -lt 15 ] || fail "an unreachable server took too long"
[ "$(wc -l <"$tmp/stderr")" = 1 ] || fail "unreachable server printed more than one line"

# The password is in no file under the config directory and in nothing skillsync printed.
if grep -rqF -- "$pw" "$SKILLSYNC_CONFIG_HOME" "$log"; then
	fail "the password was written somewhere"
fi
echo "login: ok"
