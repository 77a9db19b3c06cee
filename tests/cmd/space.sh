#!/usr/bin/env bash
# needs: pds
# Cloning a permissioned space (the test space host of tests/spaces/ in the PDS process): the
# authority creates it and adds two members, each writes records into its space repo; a clone
# by each shows the precedence rule (mine > authority > most recent); a non-member's records
# in its own repo never appear; `members` says the writers come from the space; an
# app-password session gets the line saying a full sign-in is needed; a non-member is told so.
set -euo pipefail

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SKILLSYNC_CONFIG_HOME="$tmp/config"
unset SKILLSYNC_PASSWORD XDG_CONFIG_HOME SKILLSYNC_TEST_CRASH SKILLSYNC_LOCK_WAIT

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
. "$SS_SOURCE_DIR/tests/cmd/lib/space.sh"

ss_pds_env
ss_git_identity
ss_accounts "$tmp" spc auth m1 m2 out
sp_login auth m1 m2 out
cd "$tmp"

uri=$(sp_space auth garden m1 m2)
case $uri in at://did:*/space/garden.engram.space/garden) ;; *) fail "space URI '$uri'" ;; esac

# "shared": everyone wrote it, m2 last. "auth-vs-m2": the authority, then m2 later.
# "m1-vs-m2": the two members, m1 later. Each also has a skill of its own.
sp_put auth "$uri" shared 2026-01-01T00:00:00Z "by auth"
sp_put m1 "$uri" shared 2026-01-02T00:00:00Z "by m1"
sp_put m2 "$uri" shared 2026-01-03T00:00:00Z "by m2"
sp_put auth "$uri" auth-vs-m2 2026-01-01T00:00:00Z "by auth"
sp_put m2 "$uri" auth-vs-m2 2026-01-05T00:00:00Z "by m2"
sp_put m2 "$uri" m1-vs-m2 2026-01-01T00:00:00Z "by m2"
sp_put m1 "$uri" m1-vs-m2 2026-01-04T00:00:00Z "by m1"
sp_put auth "$uri" only-auth 2026-01-01T00:00:00Z "by auth"
sp_put m1 "$uri" only-m1 2026-01-01T00:00:00Z "by m1"
sp_put m2 "$uri" only-m2 2026-01-01T00:00:00Z "by m2"
# a non-member writes into its own repo "in" the space (its PDS does not ask the authority)
sp_put out "$uri" shared 2027-01-01T00:00:00Z "by out"
sp_put out "$uri" only-out 2027-01-01T00:00:00Z "by out"

# A clone by each: mine first, then the authority's, then the most recent.
for who in auth m1 m2; do
	ss_run 0 "$SKILLSYNC" clone "$uri" "c-$who" --as "$(handle "$who")"
	grep -q "Cloned 6 skills" "$tmp/stdout" || fail "clone by $who: $(cat "$tmp/stdout")"
	grep -q "account password" "$tmp/stderr" || fail "clone by $who says nothing of the sign-in it needs"
	[ ! -e "c-$who/only-out" ] || fail "a non-member's record appeared for $who"
	for s in only-auth only-m1 only-m2; do
		[ "$(sp_line "c-$who" "$s")" = "by ${s#only-}" ] || fail "$who: $s"
	done
done
[ "$(sp_line c-auth shared)" = "by auth" ] || fail "auth: shared is not its own"
[ "$(sp_line c-m1 shared)" = "by m1" ] || fail "m1: shared is not its own"
[ "$(sp_line c-m2 shared)" = "by m2" ] || fail "m2: shared is not its own"
[ "$(sp_line c-m1 auth-vs-m2)" = "by auth" ] || fail "m1: the authority's version must win over a newer one"
[ "$(sp_line c-auth m1-vs-m2)" = "by m1" ] || fail "auth: the most recent version must win"
[ "$(sp_line c-m2 m1-vs-m2)" = "by m2" ] || fail "m2: its own must win"

# Provenance and the writers: from the space, the non-member absent.
cd c-m1
ss_run 0 "$SKILLSYNC" show auth-vs-m2
grep -q "$(did m2)" "$tmp/stdout" || fail "show does not name the shadowed version: $(cat "$tmp/stdout")"
# a full read is checked against the host's set hash, not a signed commit: no "signed by"
! grep -q "signed by" "$tmp/stdout" || fail "show claims a signature in a space clone: $(cat "$tmp/stdout")"
# every version is valid: no "invalid" line under any of them
! grep -q "invalid" "$tmp/stdout" || fail "show marks a valid version invalid in a space clone: $(cat "$tmp/stdout")"
# m1 writes a version with no description: show names it invalid with its reason, and only it
sp_xrpc m1 POST com.atproto.space.putRecord "$(python3 -c 'import json,sys; print(json.dumps({"space": sys.argv[1], "repo": sys.argv[2], "collection": "garden.engram.skill", "rkey": "auth-vs-m2", "record": {"$type": "garden.engram.skill", "name": "auth-vs-m2", "instructions": "by m1\n", "createdAt": "2026-02-01T00:00:00Z", "updatedAt": "2026-02-01T00:00:00Z"}}))' "$uri" "$(did m1)")" >/dev/null ||
	fail "putRecord of an invalid version"
ss_run 0 "$SKILLSYNC" pull
ss_run 0 "$SKILLSYNC" show auth-vs-m2
[ "$(grep -c "invalid" "$tmp/stdout")" = 1 ] || fail "show of one invalid version: $(cat "$tmp/stdout")"
grep -A1 "^  $(handle m1)  $(did m1)  updated" "$tmp/stdout" | grep -q "^    invalid: .*description" ||
	fail "show does not give the invalid version's reason: $(cat "$tmp/stdout")"
ss_run 0 "$SKILLSYNC" members
for w in auth m1 m2; do grep -q "$(did "$w")" "$tmp/stdout" || fail "members lacks $w"; done
grep -q "$(did out)" "$tmp/stdout" && fail "members lists the non-member"
grep -q "space host" "$tmp/stderr" || fail "members does not say the writers come from the space"
ss_run 1 "$SKILLSYNC" members add "$(handle out)"
grep -q "space members add" "$tmp/stderr" || fail "members add in a space clone: $(cat "$tmp/stderr")"
ss_run 0 "$SKILLSYNC" status
cd "$tmp"

# The authority may be named by its handle in the URI; the clone keeps the URI with its DID.
ss_run 0 "$SKILLSYNC" clone "at://$(handle auth)/space/garden.engram.space/garden" c-handle --as "$(handle m2)"
[ "$(sp_line c-handle shared)" = "by m2" ] || fail "clone by a handle URI"
python3 -c 'import sqlite3, sys; v = sqlite3.connect(sys.argv[1]).execute("SELECT value FROM config WHERE key = ?", ("space",)).fetchone()[0]; sys.exit(v != sys.argv[2])' \
	c-handle/.git/skillsync/state.db "$uri" || fail "the clone does not keep the URI with the DID"

# A record the host serves with another value under its CID: the writer's whole repo (getRepo)
# fails its check, and the clone stops with one line naming the writer and what failed.
sp_knob tamper "{\"space\":\"$uri\",\"repo\":\"$(did m2)\",\"collection\":\"garden.engram.skill\",\"rkey\":\"only-m2\"}" >/dev/null
ss_run 1 "$SKILLSYNC" clone "$uri" c-tampered --as "$(handle m1)"
[ ! -e c-tampered/only-m2 ] || fail "a tampered record was checked out"
grep "'$(handle m2)' not synced" "$tmp/stderr" | grep -q "does not hash to its CID" ||
	fail "tampered: $(cat "$tmp/stderr")"

# A non-member cannot read the space: one line saying to ask the authority.
ss_run 5 "$SKILLSYNC" clone "$uri" c-out --as "$(handle out)"
grep -q "not a member of this space" "$tmp/stderr" || fail "non-member: $(cat "$tmp/stderr")"
[ "$(grep -c "not a member" "$tmp/stderr")" = 1 ] && ! grep -q "cannot list" "$tmp/stderr" ||
	fail "non-member: not one clear line: $(cat "$tmp/stderr")"

# An app-password session: the delegation token needs a full sign-in, said in one line.
app=$(ss_json "$tmp/m1.json" password | "${SS_PDS_TOOLS:-$SS_SOURCE_DIR/tests/pds}/app-password" \
	"$SS_PDS_INFO" "$(handle m1)" - space-test)
SKILLSYNC_CONFIG_HOME="$tmp/config-app" SKILLSYNC_PASSWORD=$app "$SKILLSYNC" login "$(handle m1)" >/dev/null
SKILLSYNC_CONFIG_HOME="$tmp/config-app" ss_run 5 "$SKILLSYNC" clone "$uri" c-app
grep -q "account password, not an app password" "$tmp/stderr" || fail "app password: $(cat "$tmp/stderr")"
grep -q "$app" "$tmp/stderr" && fail "the app password was printed"

# A URI of another type, or --member with a URI, is refused before any request.
ss_run 1 "$SKILLSYNC" clone "at://$(did auth)/space/com.example.other/garden" c-x --as "$(handle m1)"
grep -q "garden.engram.space spaces only" "$tmp/stderr" || fail "other type: $(cat "$tmp/stderr")"
ss_run 1 "$SKILLSYNC" clone "$uri" c-y --member "$(handle out)" --as "$(handle m1)"
grep -q "names its writers itself" "$tmp/stderr" || fail "--member with a URI: $(cat "$tmp/stderr")"
echo "ok: space clone"
