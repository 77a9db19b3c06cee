#!/usr/bin/env bash
# needs: pds
# `skillsync space`: an authority creates a permissioned space on the test space host (mounted
# in the test PDS, tests/spaces/) and manages its members; what others and bad input get.
set -euo pipefail

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
ss_sandbox
ss_accounts "$work" "" auth m1 m2 other
for a in auth m1 m2 other; do
	eval "${a}_did=\$(ss_field $a did) ${a}_handle=\$(ss_field $a handle)"
done
login() { SKILLSYNC_PASSWORD=$(ss_field "$1" password) ss_run 0 "$SKILLSYNC" login "$(ss_field "$1" handle)"; }
out() { cat "$work/stdout"; }
err() { cat "$work/stderr"; }
# one_error <line>: stderr is exactly that line, stdout is empty.
one_error() {
	[ "$(err)" = "$1" ] || fail "want '$1', got: $(err)"
	[ ! -s "$work/stdout" ] || fail "printed on stdout: $(out)"
}
uri="at://$auth_did/space/garden.engram.space/team"

# A bad key or policy is refused before anything else: no session is needed to be told.
ss_run 1 "$SKILLSYNC" space create 'team/x'
one_error "skillsync: 'team/x' is not a valid space key: use letters, digits and . - _ : ~ only"
ss_run 1 "$SKILLSYNC" space create team --read-policy friends
one_error "skillsync: 'friends' is not a policy: use 'members' or 'public'"
# Outside a clone, the space must be named.
ss_run 1 "$SKILLSYNC" space members
one_error "skillsync: which space? name it with --space <key-or-uri> (or run this in a clone of it)"

# The authority creates its space (the only session: no --as needed).
login auth
ss_run 0 "$SKILLSYNC" space create team
[ "$(sed -n 1p "$work/stdout")" = \
	"Created $uri (read: members, write: members) for $auth_handle" ] || fail "create said: $(out)"
grep -qx "Clone it:    skillsync clone $uri" "$work/stdout" || fail "no clone line: $(out)"
ss_run 1 "$SKILLSYNC" space create team
one_error "skillsync: you already have a space with the key 'team' (its members: 'skillsync space members --space team')"
ss_run 0 "$SKILLSYNC" space create open --read-policy public --json
[ "$(out)" = "{\"uri\":\"at://$auth_did/space/garden.engram.space/open\",\"readPolicy\":\"public\",\"writePolicy\":\"members\"}" ] ||
	fail "create --json said: $(out)"
ss_run 1 "$SKILLSYNC" space members --space nosuch
one_error "skillsync: there is no space 'at://$auth_did/space/garden.engram.space/nosuch'"

# Two members, one read-only; by key, and by URI with a handle for the authority.
ss_run 0 "$SKILLSYNC" space members add "$m1_handle" --space team
[ "$(out)" = "Added '$m1_handle' ($m1_did) to $uri: read-write" ] || fail "add said: $(out)"
ss_run 0 "$SKILLSYNC" space members add "$m2_did" --read-only \
	--space "at://$auth_handle/space/garden.engram.space/team"
[ "$(out)" = "Added '$m2_handle' ($m2_did) to $uri: read-only" ] || fail "add --read-only said: $(out)"
ss_run 0 "$SKILLSYNC" space members add "$m1_did" --space team
[ "$(out)" = "'$m1_handle' is already a member (read-write): nothing changed" ] || fail "re-add said: $(out)"

# The list, as JSON and as text (the authority may be listed too: only the members are checked).
ss_run 0 "$SKILLSYNC" space members --space "$uri" --json
python3 - "$work/stdout" "$m1_did" "$m1_handle" "$m2_did" "$m2_handle" <<'PY' || fail "members --json: $(out)"
import json, sys
got = {m["did"]: m for m in json.load(open(sys.argv[1]))}
m1, h1, m2, h2 = sys.argv[2:6]
assert got[m1] == {"did": m1, "handle": h1, "read": True, "write": True}, got
assert got[m2] == {"did": m2, "handle": h2, "read": True, "write": False}, got
PY
ss_run 0 "$SKILLSYNC" space members --space team
grep -Eqx "read-write +$m1_handle +$m1_did" "$work/stdout" || fail "members: $(out)"
grep -Eqx "read-only +$m2_handle +$m2_did" "$work/stdout" || fail "members: $(out)"

# Removing one; removing it again is an error; the list no longer has it.
ss_run 0 "$SKILLSYNC" space members remove "$m1_handle" --space team
[ "$(out)" = "Removed '$m1_handle' ($m1_did) from $uri; its records leave the members' views at their next pull" ] ||
	fail "remove said: $(out)"
ss_run 1 "$SKILLSYNC" space members remove "$m1_did" --space team
one_error "skillsync: '$m1_did' is not a member of $uri"
ss_run 0 "$SKILLSYNC" space members --space team --json
python3 -c 'import json,sys; d={m["did"] for m in json.load(open(sys.argv[1]))}; assert sys.argv[2] not in d and sys.argv[3] in d, d' \
	"$work/stdout" "$m1_did" "$m2_did" || fail "members after remove: $(out)"

# A list longer than a page (100): 120 members put straight to the host (their DIDs resolve to
# nothing, so they are listed without handles).
ss_run 0 "$SKILLSYNC" space create big
SS_TOKEN=$(ss_field auth accessJwt) python3 - "$pds" "at://$auth_did/space/garden.engram.space/big" <<'PY'
import json, os, sys, urllib.request
pds, space = sys.argv[1:3]
for i in range(120):
    body = json.dumps({"space": space, "did": f"did:plc:member{i:03d}", "read": True, "write": True})
    req = urllib.request.Request(f"{pds}/xrpc/com.atproto.simplespace.putMember", body.encode(),
                                 {"Content-Type": "application/json",
                                  "Authorization": "Bearer " + os.environ["SS_TOKEN"]})
    urllib.request.urlopen(req).read()
PY
ss_run 0 "$SKILLSYNC" space members --space big --json
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); assert [x["did"] for x in m] == ["did:plc:member%03d" % i for i in range(120)] and all(x["handle"] is None for x in m), m' \
	"$work/stdout" || fail "a list of 120: $(head -c 300 "$work/stdout")"

# In a clone, the clone's space is the default: none for a public one; the state's config
# "space" (the URI) for a permissioned one (set here by hand: what a space clone writes).
ss_run 0 "$SKILLSYNC" clone "$auth_handle" pub
cd pub
ss_run 1 "$SKILLSYNC" space members
one_error "skillsync: this clone follows a public space, which has no member list to manage: name a permissioned space with --space"
python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute("INSERT INTO config VALUES (?, ?)", ("space", sys.argv[2])); db.commit()' \
	.git/skillsync/state.db "$uri"
ss_run 0 "$SKILLSYNC" space members
grep -Eqx "read-only +$m2_handle +$m2_did" "$work/stdout" || fail "members in a clone: $(out)"
cd ..

# Someone else cannot change the members: the host's NotSpaceOwner, as one line.
login other
ss_run 5 "$SKILLSYNC" space members add "$m1_handle" --space "$uri" --as "$other_handle"
one_error "skillsync: only the authority of '$uri' manages its members: sign in as it (and use --as when signed in as several)"
# With two sessions, a URI picks its authority's.
ss_run 0 "$SKILLSYNC" space members --space "$uri"
grep -q "$m2_did" "$work/stdout" || fail "members with two sessions: $(out)"
