#!/usr/bin/env bash
# needs: pds
# build: sanitize
# The fault matrix of the permissioned-space transport: clone, pull and push of a small space
# (an authority and two members, a few records each) through the fault proxy (tests/fault/proxy.py),
# a fault injected at the Nth request. The proxy stands in front of the PLC and the PDS, so every
# request goes through it: the delegation token at my PDS, the exchange and listRepos at the
# space host (declared as the proxy with the host's spaceHostService knob), getRepo (clone)
# and listRepoOps (pull) at each writer's PDS; for push, refreshSession (the access token made
# expired first), listRepoOps on my repo (the check before the writes and the one after) and
# applyWrites at my PDS (see push_cases). For each command, one fault of each class at
# every request index it makes (drop-after, 500, cut, stall, shape-types), then a seeded sample
# of the others (drop-before, 502, 503, stall-after, shape-array, shape-html, a 503 on every
# request from N on). Each time skillsync either completes after its bounded retries or stops with one line and a
# documented exit code (docs/EXIT-CODES.md: 4 for the network, 1 for an answer of the wrong
# shape), never with the host's "JwtReplayed" (a delegation token sent again after the host may
# have spent it); then a rerun without faults (which needs a fresh token, the host refuses
# replays) converges to what the same command gives without faults in a twin clone: the same
# working tree (for pull an uncommitted edit included, untouched), the same committed tree and
# tracking tree, the same 'ls --json'; for clone also the same 'status --json' and history.
# The indices are those of the space methods' requests (see space_indices); 429 is left out
# (the shared HTTP layer's wait, which tests/cmd/faults.sh runs at every index).
# Environment: SS_FAULT_SEED (default 1) seeds the sample, SS_FAULT_SAMPLE sizes it (default 3
# per command); SS_FAULTS_FULL=1 runs every fault at every index; SS_FAULT_COMMANDS (default
# "clone pull push rollback ops") picks the commands ("rollback": see rollback_cases; "ops": see
# op_cases); SS_FAULT_VERBOSE=1 prints each case; SS_FAULT_KEEP_GOING=1
# reports a failed case and goes on; SS_FAULT_CASES="<kind> <index>,..." runs those cases only.
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_SOURCE_DIR:?}"
seed=${SS_FAULT_SEED:-1}
full=${SS_FAULTS_FULL:-0}
unset SKILLSYNC_PASSWORD XDG_CONFIG_HOME SKILLSYNC_TEST_CRASH SKILLSYNC_LOCK_WAIT

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
. "$SS_SOURCE_DIR/tests/fault/lib.sh"

ss_proxy_workdir
tmp=$work
. "$SS_SOURCE_DIR/tests/cmd/lib/space.sh"
export SKILLSYNC_CONFIG_HOME=$work/config

every=(drop-after 500 cut stall shape-types)
others=(drop-before 502 503 stall-after shape-array shape-html 503x)
if [ "$full" = 1 ]; then
	every+=("${others[@]}")
	others=()
fi
sample=${SS_FAULT_SAMPLE:-3}

# Known failures, still to fix (docs/RELIABILITY.md): "<command>:<kind>:<index>" globs. A case
# listed here that fails is reported as XFAIL and does not fail the script; one that passes is
# reported as XPASS (remove it from the list once it always passes).
known_failures=(
	# none today
)

ss_accounts "$work" sf auth m1 m2
sp_login auth m1 m2
uri=$(sp_space auth faults m1 m2)
# The space host is the proxy (the authority's PDS would be too, through the proxy's rewritten
# DID document; the knob makes it the declared #atproto_space_host path).
sp_knob spaceHostService "{\"did\":\"$(did auth)\",\"endpoint\":\"$proxy\"}" >/dev/null
for who in auth m1 m2; do
	for s in 1 2; do sp_put "$who" "$uri" "$who-s$s" 2026-01-01T00:00:00Z "by $who"; done
done
as_m1=(--as "$(handle m1)")

# faulted <kind> <command>...: the run that gets the fault. A stall must outlast the client: the
# shortest timeout skillsync accepts, for the stalls only (a loaded machine may take more than a
# second to answer a request the fault is not on).
faulted() {
	local kind=$1
	shift
	case $kind in
	stall*) SKILLSYNC_TIMEOUT=1 "$SKILLSYNC" "$@" ;;
	*) "$SKILLSYNC" "$@" ;;
	esac
}

passed=0 xfail=0 injected=0
declare -A survived stopped done_by stopped_by xfail_by

# check_stop <kind> <rc> <stderr>: the faulted run either succeeded or stopped with one line
# and the exit code that kind of fault gets; prints the problem.
check_stop() {
	local kind=$1 rc=$2 err=$3 lines
	! grep -q "JwtReplayed" "$err" || { echo "a delegation token was sent again: $(cat "$err")" && return 1; }
	[ "$rc" != 0 ] || return 0
	case "$kind:$rc" in
	shape-*:1 | *:4) ;;
	*) echo "exit $rc: $(cat "$err")" && return 1 ;;
	esac
	lines=$(grep -v -e "^Cloning into" -e "^Removing '.*' left by an interrupted clone" \
		-e "^skillsync: the partial clone stays in" "$err" | grep -c . || true)
	# pull goes on past each writer it cannot read: one warning line each (at most the three
	# writers, each named once), else one line
	if [ "$lines" -gt 1 ] && [ "$lines" -le 3 ] &&
		[ "$(grep -c "^warning: cannot list the skills of '.*'.*; its last known versions are kept$" "$err")" = "$lines" ] &&
		[ "$(grep -o "^warning: cannot list the skills of '[^']*'" "$err" | sort -u | wc -l)" = "$lines" ]; then
		lines=1
	fi
	[ "$lines" = 1 ] || { echo "$lines lines: $(cat "$err")" && return 1; }
	grep -q -e "^skillsync: " -e "^warning: .*; its last known versions are kept$" "$err" ||
		{ echo "not a skillsync: line" && return 1; }
	! grep -q "local state:" "$err" || { echo "the local state blamed: $(cat "$err")" && return 1; }
}

count() {
	if [ "$3" = 0 ]; then
		survived[$1]=$((${survived[$1]:-0} + 1))
		done_by["$1 $2"]=$((${done_by["$1 $2"]:-0} + 1))
	else
		stopped[$1]=$((${stopped[$1]:-0} + 1))
		stopped_by["$1 $2"]=$((${stopped_by["$1 $2"]:-0} + 1))
	fi
}

# view <dir> <ls|status>: that command's --json output in clone <dir>, record times blanked.
view() {
	(cd "$1" && "$SKILLSYNC" "$2" --json 2>&1) | sed -E 's/"(updatedAt)":"[^"]*"/\1/g'
}

# same <a> <b>: the two clones hold the same working tree, committed tree and view (a pull
# that stopped past one writer committed the others' changes: one commit more than the twin).
same() {
	local a=$1 b=$2 what
	diff -r -x .git "$a" "$b" >/dev/null || { echo "working trees differ" && return 1; }
	[ "$(git -C "$a" rev-parse 'HEAD^{tree}')" = "$(git -C "$b" rev-parse 'HEAD^{tree}')" ] ||
		{ echo "committed trees differ" && return 1; }
	[ "$(view "$a" ls)" = "$(view "$b" ls)" ] ||
		{ echo "'ls --json' differs: $(diff <(view "$a" ls) <(view "$b" ls) | head -c 600)" && return 1; }
}

verdict() {
	local id="$1:$2:$3" problem=$4 k listed=
	for k in "${known_failures[@]}"; do
		# shellcheck disable=SC2053
		[[ $id == $k ]] && listed=1
	done
	[ -z "${SS_FAULT_VERBOSE:-}" ] || echo "$id ${SECONDS}s ${problem:-ok}"
	if [ -z "$problem" ]; then
		[ -z "$listed" ] || echo "XPASS $id (remove it from known_failures)"
		passed=$((passed + 1))
	elif [ -n "$listed" ]; then
		echo "XFAIL $id: $problem"
		xfail=$((xfail + 1))
		xfail_by["$1 $2"]=$((${xfail_by["$1 $2"]:-0} + 1))
	elif [ -n "${SS_FAULT_KEEP_GOING:-}" ]; then
		echo "FAILED $id: $problem"
	else
		cat "$work/err" >&2
		fail "$id: $problem"
	fi
}

inject() {
	if [ "$1" = 503x ]; then ss_fault 503 "$2" 0; else ss_fault "$1" "$2"; fi
}

# space_indices: the indices of the space methods' requests since the last set/clear; of a
# method called for each writer in turn (getRepo, listRepoOps), the first and the last call.
# The identity requests between them (DID documents, handles) are the public transport's, which
# tests/cmd/faults.sh covers.
space_indices() {
	curl -sf "$proxy/_fault/count" | python3 -c '
import json, sys
log = json.load(sys.stdin)["log"]
calls = [(i + 1, l) for i, l in enumerate(log) if " /xrpc/com.atproto.space." in l]
keep = [i for k, (i, l) in enumerate(calls)
        if k in (0, len(calls) - 1) or calls[k - 1][1] != l or calls[k + 1][1] != l]
print(" ".join(map(str, keep)))'
}

# cases <index>...: the (kind, index) pairs to run, one "kind at" a line.
cases() {
	local k i pool=()
	if [ -n "${SS_FAULT_CASES:-}" ]; then
		tr ',' '\n' <<<"$SS_FAULT_CASES"
		return
	fi
	for k in "${every[@]}"; do
		for i; do echo "$k $i"; done
	done
	for k in "${others[@]}"; do
		for i; do pool+=("$k $i"); done
	done
	((${#pool[@]})) || return 0
	RANDOM=$seed
	for ((i = 0; i < sample && ${#pool[@]}; i++)); do
		k=$((RANDOM % ${#pool[@]}))
		echo "${pool[$k]}"
		pool=("${pool[@]:0:$k}" "${pool[@]:$((k + 1))}")
	done
}

# log_has <nsid>: the proxy saw a request of that method since the last set/clear.
log_has() { curl -sf "$proxy/_fault/count" | grep -q "/xrpc/$1\""; }

# -- clone: as m1, into an empty directory each time; the rerun is the same command.
clone_cases() {
	ss_fault_clear
	"$SKILLSYNC" clone "$uri" ref "${as_m1[@]}" >/dev/null 2>&1 || fail "reference clone"
	read -ra at_list < <(space_indices)
	ref_log=$(git -C ref log --format=%s)
	ref_ls=$(view ref ls)
	ref_status=$(view ref status)
	for nsid in com.atproto.space.getDelegationToken com.atproto.space.getSpaceCredential \
		com.atproto.space.listRepos com.atproto.space.getRepo; do
		log_has "$nsid" || fail "the clone did not call $nsid through the proxy: $(curl -sf "$proxy/_fault/count")"
	done
	while read -r kind at; do
		rm -rf c c.skillsync-partial
		inject "$kind" "$at"
		rc=0
		faulted "$kind" clone "$uri" c "${as_m1[@]}" >/dev/null 2>err || rc=$?
		hits=$(ss_fault_hits)
		injected=$((injected + hits))
		ss_fault_clear
		problem=$(check_stop "$kind" "$rc" err) || true
		[ "$hits" != 0 ] || problem="no fault injected: fewer than $at requests"
		count clone "$kind" "$rc"
		if [ -z "$problem" ] && [ "$rc" != 0 ]; then
			rm -rf c.skillsync-partial
			"$SKILLSYNC" clone "$uri" c "${as_m1[@]}" >/dev/null 2>"$work/err2" ||
				problem="the rerun failed: $(cat "$work/err2")"
		fi
		[ -n "$problem" ] || diff -r -x .git c ref >/dev/null || problem="working trees differ"
		[ -n "$problem" ] || [ "$(git -C c log --format=%s)" = "$ref_log" ] || problem="histories differ"
		[ -n "$problem" ] || [ "$(view c ls)" = "$ref_ls" ] || problem="'ls --json' differs"
		[ -n "$problem" ] || [ "$(view c status)" = "$ref_status" ] || problem="'status --json' differs"
		verdict clone "$kind" "$at" "$problem"
	done < <(cases "${at_list[@]}")
	rm -rf ref c
}

# -- pull: each case, the authority changes a skill and m2 adds one (two writers' ops to read);
# the twin clone pulls without faults. Both clones keep the same uncommitted edit.
pull_cases() {
	"$SKILLSYNC" clone "$uri" ref "${as_m1[@]}" >/dev/null 2>&1 || fail "reference clone"
	cp -a ref p
	echo "an uncommitted edit" >>ref/m1-s1/SKILL.md
	echo "an uncommitted edit" >>p/m1-s1/SKILL.md
	step=0
	change() {
		step=$((step + 1))
		sp_put auth "$uri" auth-s1 "2026-02-01T00:00:$(printf %02d $((step % 60)))Z" "version $step"
		sp_put m2 "$uri" "m2-new$step" 2026-02-01T00:00:00Z "new $step"
	}
	change
	ss_fault_clear
	(cd ref && "$SKILLSYNC" pull --quiet >/dev/null) || fail "reference pull"
	read -ra at_list < <(space_indices)
	log_has com.atproto.space.listRepoOps ||
		fail "the pull did not call listRepoOps through the proxy: $(curl -sf "$proxy/_fault/count")"
	(cd p && "$SKILLSYNC" pull --quiet >/dev/null) || fail "probe pull"
	while read -r kind at; do
		change
		(cd ref && "$SKILLSYNC" pull --quiet >/dev/null) || fail "reference pull"
		inject "$kind" "$at"
		rc=0
		(cd p && faulted "$kind" pull --quiet) >/dev/null 2>err || rc=$?
		hits=$(ss_fault_hits)
		injected=$((injected + hits))
		ss_fault_clear
		problem=$(check_stop "$kind" "$rc" err) || true
		[ "$hits" != 0 ] || problem="no fault injected: fewer than $at requests"
		count pull "$kind" "$rc"
		if [ -z "$problem" ] && [ "$rc" != 0 ]; then
			(cd p && "$SKILLSYNC" pull --quiet) >/dev/null 2>"$work/err2" ||
				problem="the rerun failed: $(cat "$work/err2")"
		fi
		[ -n "$problem" ] || problem=$(same p ref) || true
		[ -n "$problem" ] || [ "$(git -C p rev-parse 'refs/remotes/space/main^{tree}')" = \
			"$(git -C ref rev-parse 'refs/remotes/space/main^{tree}')" ] || problem="tracking trees differ"
		[ -n "$problem" ] || grep -q "an uncommitted edit" p/m1-s1/SKILL.md || problem="the edit is gone"
		verdict pull "$kind" "$at" "$problem"
	done < <(cases "${at_list[@]}")
}

# expire_session <name>: <name>'s stored access token made one that expired long ago, so that
# the next command refreshes the session first (refreshSession is then its first request).
expire_session() {
	python3 - "$SKILLSYNC_CONFIG_HOME" "$(did "$1")" <<'PY'
import base64, glob, os, sys
home, did = sys.argv[1:3]
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
token = b64(b'{"alg":"HS256","typ":"JWT"}') + "." + b64(b'{"exp":1}') + "." + b64(b"sig")
for path in glob.glob(os.path.join(home, "**", did + "*"), recursive=True):
    lines = open(path).read().splitlines(True)
    lines = ["access " + token + "\n" if l.startswith("access ") else l for l in lines]
    fd = os.open(path + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write("".join(lines))
    os.replace(path + ".tmp", path)
PY
}

# -- push: m1's clone pm pushes each case's commit (a new skill, an update, the previous case's
# new skill deleted) with its session's access token expired (so the push refreshes it first);
# the rerun is `push`, which must not say "pull first" (no one else writes to m1's repo). Then
# the host holds exactly the committed records with their notes, each write made once (the
# repo's ops counted), and nothing is left to push (push --dry-run). After the last case (and after
# each one with SS_FAULTS_FULL=1), a second clone of m1 pulls (incrementally, verified, no
# warning) to the same tree and view as pm, and pm's own pull has nothing to take in.
push_cases() {
	local held ops rc2 pulls
	"$SKILLSYNC" clone "$uri" pm "${as_m1[@]}" >/dev/null 2>&1 || fail "clone pm"
	"$SKILLSYNC" clone "$uri" pr "${as_m1[@]}" >/dev/null 2>&1 || fail "clone pr"
	step=0
	edit() {
		step=$((step + 1))
		(cd pm && ss_skill "k$step" "case $step" && ss_skill mine "version $step" &&
			rm -rf "k$((step - 1))" && "$SKILLSYNC" commit -m "case $step" >/dev/null) ||
			fail "commit case $step"
	}
	# expected: what sp_records gives after this case's push.
	expected() {
		{
			echo "k$step case $step | case $step"
			echo "m1-s1 - | by m1"
			echo "m1-s2 - | by m1"
			echo "mine case $step | version $step"
		} | sort
		echo "ops $ops"
	}
	# second_clone: pr pulls; the problem, if any.
	second_clone() {
		ss_fault_clear
		(cd pr && "$SKILLSYNC" pull --json) >"$work/pulled" 2>"$work/err2" ||
			{ echo "the second clone's pull failed: $(cat "$work/err2")" && return; }
		[ ! -s "$work/err2" ] || { echo "the second clone's pull warned: $(cat "$work/err2")" && return; }
		grep -q '"listings":{"full":0,"incremental":1,"fallback":0}' "$work/pulled" ||
			{ echo "the second clone's pull did not verify m1 incrementally: $(cat "$work/pulled")" && return; }
		same pm pr || return
		(cd pm && "$SKILLSYNC" pull --json) >"$work/pulled" 2>"$work/err2" ||
			{ echo "pm's pull failed: $(cat "$work/err2")" && return; }
		grep -q '"changes":\[\]' "$work/pulled" && [ ! -s "$work/err2" ] ||
			echo "pm's pull takes in its own writes: $(cat "$work/err2" "$work/pulled")"
	}
	edit
	expire_session m1
	ss_fault_clear
	(cd pm && "$SKILLSYNC" push >/dev/null) || fail "probe push"
	read -ra at_list < <(push_indices)
	[ -z "${SS_FAULT_VERBOSE:-}" ] || curl -sf "$proxy/_fault/count" | python3 -c '
import json, sys
for i, l in enumerate(json.load(sys.stdin)["log"]): print("push request", i + 1, l[:90])'
	for nsid in com.atproto.server.refreshSession com.atproto.space.listRepoOps \
		com.atproto.space.applyWrites; do
		log_has "$nsid" || fail "the push did not call $nsid through the proxy: $(curl -sf "$proxy/_fault/count")"
	done
	held=$(sp_records m1 "$uri")
	ops=${held##*ops }
	[ "$held" = "$(expected)" ] || fail "probe push: the host holds $held"
	pulls=0
	while read -r kind at; do
		edit
		ops=$((ops + 3))
		expire_session m1
		inject "$kind" "$at"
		rc=0
		(cd pm && faulted "$kind" push) >/dev/null 2>err || rc=$?
		hits=$(ss_fault_hits)
		injected=$((injected + hits))
		ss_fault_clear
		problem=$(check_stop "$kind" "$rc" err) || true
		[ "$hits" != 0 ] || problem="no fault injected: fewer than $at requests"
		count push "$kind" "$rc"
		if [ -z "$problem" ] && [ "$rc" != 0 ]; then
			rc2=0
			(cd pm && "$SKILLSYNC" push) >/dev/null 2>"$work/err2" || rc2=$?
			[ "$rc2" = 0 ] || problem="the rerun exited $rc2: $(cat "$work/err2")"
		fi
		held=$(sp_records m1 "$uri")
		[ -n "$problem" ] || [ "$held" = "$(expected)" ] ||
			problem="the host holds: $(tr '\n' ';' <<<"$held") not: $(expected | tr '\n' ';')"
		ops=${held##*ops }
		[ -n "$problem" ] || [ "$(cd pm && "$SKILLSYNC" push --dry-run --json 2>&1 | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["writes"]))' 2>&1)" = 0 ] ||
			problem="a second push would send again: $(cd pm && "$SKILLSYNC" push --dry-run --json 2>&1)"
		if [ -z "$problem" ] && [ "$full" = 1 ]; then
			problem=$(second_clone)
			pulls=$((pulls + 1))
		fi
		verdict push "$kind" "$at" "$problem"
	done < <(cases "${at_list[@]}")
	if [ "$pulls" = 0 ]; then
		problem=$(second_clone)
		verdict push pull-after "$step" "$problem"
	fi
}

# push_indices: the indices of a push's own requests since the last set/clear (the session's
# refresh, the space methods); the identity requests are the public transport's.
push_indices() {
	curl -sf "$proxy/_fault/count" | python3 -c '
import json, sys
log = json.load(sys.stdin)["log"]
print(" ".join(str(i + 1) for i, l in enumerate(log)
               if " /xrpc/com.atproto.space." in l or "refreshSession" in l))'
}

# -- rollback: a host that replays a writer's older, genuinely signed state (docs/SECURITY.md,
# "The verified floor"). m1's clone takes m2's newer version; then the host (the snapshot and
# rollback knobs of tests/spaces/host.js) lists m2 at the older revision, answers listRepoOps
# with ops that fold the kept set back to the older set under that set's signed commit, and
# serves the older repo on getRepo: refused, one line naming m2, exit 4, the newer version
# stays; once the host is honest again, the pulls are clean and m2's next write arrives.
rollback_cases() {
	local knob="{\"space\":\"$uri\",\"repo\":\"$(did m2)\""
	space_pull() {
		local rc=0
		(cd rbk && "$SKILLSYNC" pull) >"$work/out" 2>"$work/err" || rc=$?
		[ "$rc" = "$1" ] || fail "rollback: the pull exited $rc, not $1: $(cat "$work/err")"
	}
	ss_fault_clear
	"$SKILLSYNC" clone "$uri" rbk "${as_m1[@]}" >/dev/null 2>&1 || fail "rollback: clone"
	sp_knob snapshot "$knob}" >/dev/null
	sp_put m2 "$uri" m2-s1 2026-03-01T00:00:00Z "rolled forward"
	space_pull 0
	[ "$(sp_line rbk m2-s1)" = "rolled forward" ] || fail "rollback: the newer version did not arrive"
	sp_knob rollback "$knob,\"on\":true}" >/dev/null
	space_pull 4
	[ "$(grep -c . "$work/err")" = 1 ] && grep -q "'$(handle m2)'.*older than the verified revision" "$work/err" ||
		fail "rollback: not one line naming m2 saying 'older than the verified revision': $(cat "$work/err")"
	echo "  refused: $(cat "$work/err")"
	[ "$(sp_line rbk m2-s1)" = "rolled forward" ] || fail "rollback: the older version came back"
	sp_knob rollback "$knob,\"on\":false}" >/dev/null
	space_pull 0
	[ "$(sp_line rbk m2-s1)" = "rolled forward" ] || fail "rollback: the honest pull after the rollback"
	sp_put m2 "$uri" m2-s1 2026-03-02T00:00:00Z "after the rollback"
	space_pull 0
	[ "$(sp_line rbk m2-s1)" = "after the rollback" ] || fail "rollback: m2's next write did not arrive"
	rm -rf rbk
}

# -- ops that are not ops (kept apart from the fault cases above): the proxy hands m1's pull
# the authority's listRepoOps pages with their first op without a "rev", with a rev that is
# not a TID, with a cid that is not a CID. Each time the pull does not crash (nothing of the
# page is read before the page is checked), says one line naming the authority and what is
# wrong with the op, and takes nothing of the authority's change; the next pull, untampered,
# converges to a twin clone that pulled without tampering.
op_tamper() { curl -sf -G "$proxy/_fault/tamper" --data-urlencode "kind=$1" \
	--data-urlencode "did=${2:-}" >/dev/null || fail "tamper $1"; }
op_cases() {
	local kind says rc n=0 line
	ss_fault_clear
	"$SKILLSYNC" clone "$uri" oref "${as_m1[@]}" >/dev/null 2>"$work/err2" || fail "clone oref: $(cat "$work/err2")"
	cp -a oref op
	for kind in op-no-rev op-bad-rev op-bad-cid; do
		case $kind in
		op-no-rev) says="has no rev" ;;
		op-bad-rev) says="has a rev that is not a TID" ;;
		op-bad-cid) says="has a cid that is neither a CID nor null" ;;
		esac
		n=$((n + 1))
		sp_put auth "$uri" auth-s2 "2026-03-01T00:00:0${n}Z" "hostile $n"
		(cd oref && "$SKILLSYNC" pull --quiet >/dev/null) || fail "$kind: the twin's pull"
		op_tamper "$kind" "$(did auth)"
		rc=0
		(cd op && "$SKILLSYNC" pull) >/dev/null 2>err || rc=$?
		op_tamper ""
		! grep -q -e "AddressSanitizer" -e "runtime error" err || fail "$kind: the pull crashed: $(cat err)"
		[ "$rc" = 4 ] || [ "$rc" = 1 ] || fail "$kind: the pull exited $rc: $(cat err)"
		[ "$(grep -c . err)" = 1 ] || fail "$kind: not one line: $(cat err)"
		line=$(cat err)
		[[ $line == *"'$(handle auth)'"*"com.atproto.space.listRepoOps"*"$says"* ]] ||
			fail "$kind: the line does not name the authority and say '$says': $line"
		echo "$kind (exit $rc): $line"
		[ "$(sp_line op auth-s2)" != "hostile $n" ] || fail "$kind: the refused change was taken"
		(cd op && "$SKILLSYNC" pull) >/dev/null 2>"$work/err2" ||
			fail "$kind: the next pull failed: $(cat "$work/err2")"
		[ ! -s "$work/err2" ] || fail "$kind: the next pull warned: $(cat "$work/err2")"
		problem=$(same op oref) || fail "$kind: no convergence: $problem"
		[ "$(sp_line op auth-s2)" = "hostile $n" ] || fail "$kind: the change did not arrive"
		passed=$((passed + 1))
	done
	rm -rf oref op
}

commands=" ${SS_FAULT_COMMANDS:-clone pull push rollback ops} "
[[ $commands != *" clone "* ]] || clone_cases
[[ $commands != *" pull "* ]] || pull_cases
[[ $commands != *" push "* ]] || push_cases
[[ $commands != *" rollback "* ]] || rollback_cases
[[ $commands != *" ops "* ]] || op_cases
sp_knob spaceHostService "{\"did\":\"$(did auth)\",\"endpoint\":null}" >/dev/null

for key in $(printf '%s\n' "${!done_by[@]}" "${!stopped_by[@]}" "${!xfail_by[@]}" | tr ' ' : | sort -u); do
	key=${key/:/ }
	echo "  $key: completed ${done_by[$key]:-0}, stopped ${stopped_by[$key]:-0}, known failures ${xfail_by[$key]:-0}"
done
echo "space fault matrix (seed $seed): $passed cases passed, $xfail known failures," \
	"$injected faults injected in ${SECONDS}s; completed: clone ${survived[clone]:-0}," \
	"pull ${survived[pull]:-0}, push ${survived[push]:-0}; stopped with one line:" \
	"clone ${stopped[clone]:-0}, pull ${stopped[pull]:-0}, push ${stopped[push]:-0}"
