#!/usr/bin/env bash
# needs: pds
# build: sanitize
# The fault matrix: clone, pull and push against the real PDS through the fault proxy
# (tests/fault/proxy.py), a fault injected at the Nth request. For each command, one fault of
# each class at every request index the command makes (drop-after, 500, 429, cut, stall,
# shape-types), then a seeded sample of the other faults (drop-before, 502, 503, stall-after,
# shape-array, shape-html, and a 503 on every request from N on). Each time skillsync either
# completes after its bounded retries or stops with one line and a documented exit code
# (docs/EXIT-CODES.md: 4 for the network, 1 for an answer of the wrong shape); then a rerun
# without faults (for push: push again; no one else writes to the repo, so never "pull first")
# converges to exactly what the same command gives without faults in a twin clone: the same
# working tree (an uncommitted edit included, untouched), the same committed tree, the same
# view (ls --json), nothing left to push, the same records on the server, and every commit
# made still in the history. Then "restart": the PDS stopped and started again between a
# push's batches (on a PDS of its own).
# Environment: SS_FAULT_SEED (default 1) seeds the sample, SS_FAULT_SAMPLE sizes it (default 4
# per command); SS_FAULTS_FULL=1 runs every fault at every index (the full matrix,
# docs/RELIABILITY.md); SS_FAULT_COMMANDS (default "clone pull push restart rollback withheld")
# picks the commands; SS_FAULT_VERBOSE=1 prints each case. "rollback" and "withheld" are the
# lying servers of docs/SECURITY.md, "The verified floor" (see rollback_case, withheld_case).
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_TESTDATA:?}" "${SS_SOURCE_DIR:?}"
fill=$(dirname "$SKILLSYNC")/ss-fill
seed=${SS_FAULT_SEED:-1}
full=${SS_FAULTS_FULL:-0}

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
. "$SS_SOURCE_DIR/tests/fault/lib.sh"

ss_proxy_workdir

every=(drop-after 500 429 cut stall shape-types)
others=(drop-before 502 503 stall-after shape-array shape-html 503x)
if [ "$full" = 1 ]; then
	every+=("${others[@]}")
	others=()
fi
sample=${SS_FAULT_SAMPLE:-4}

# Known failures, still to fix (docs/RELIABILITY.md): "<command>:<kind>:<index>" globs. A case
# listed here that fails is reported as XFAIL and does not fail the script; one that passes is
# reported as XPASS (remove it from the list once it always passes).
known_failures=(
	# none today
)

ss_accounts . "" auth me twin
for who in auth me twin; do
	declare "${who}_did=$(ss_json "$who.json" did)" "${who}_handle=$(ss_json "$who.json" handle)"
done

# put <who> <dir>...: records written straight to the PDS (not through the proxy).
put() {
	local who=$1
	shift
	SS_FILL_TOKEN=$(ss_json "$work/$who.json" accessJwt) "$fill" --pds "$pds" \
		--did "$(ss_json "$work/$who.json" did)" --put "$@" >/dev/null
}
# skill <dir> <name> <body>: a small valid skill.
skill() {
	mkdir -p "$1"
	printf -- '---\nname: %s\ndescription: A skill for the fault matrix.\n---\n%s\n' "$2" "$3" \
		>"$1/SKILL.md"
}
skill src/drift drift "version 0"
skill src/steady steady "never changes"
put auth "$SS_TESTDATA"/skills/valid/basic/*/ src/drift src/steady

# Two config homes, one per account; me signs in and clones through the proxy.
as() {
	local who=$1
	shift
	SKILLSYNC_CONFIG_HOME=$work/config-$who "$SKILLSYNC" "$@"
}
# faulted <kind> <who> <command>...: the run that gets the fault. A stall must outlast the
# client: the shortest timeout skillsync accepts, for the stalls only (every other run keeps the
# default: a loaded machine may take more than a second to answer a request the fault is not
# on, and the fault would then never be reached).
faulted() {
	local kind=$1
	shift
	case $kind in
	stall*) SKILLSYNC_TIMEOUT=1 as "$@" ;;
	*) as "$@" ;;
	esac
}
for who in me twin; do
	SKILLSYNC_PASSWORD=$(ss_json "$who.json" password) as "$who" login \
		"$(ss_json "$who.json" handle)" >/dev/null
done
commands=" ${SS_FAULT_COMMANDS:-clone pull push restart rollback withheld} "

passed=0 xfail=0 injected=0
declare -A survived stopped done_by stopped_by xfail_by

# check_stop <kind> <rc> <stderr>: the faulted run either succeeded or stopped with one line
# and the exit code that kind of fault gets; prints the problem.
check_stop() {
	local kind=$1 rc=$2 err=$3 lines warned
	[ "$rc" != 0 ] || return 0
	case "$kind:$rc" in
	shape-*:1 | *:4) ;;
	*) echo "exit $rc" && return 1 ;;
	esac
	lines=$(grep -v -e "^Cloning into" -e "^Removing '.*' left by an interrupted clone" \
		-e "^skillsync: the partial clone stays in" "$err" | grep -c . || true)
	# pull and fetch name each member they could not read, one line each
	warned=$(grep -c "^warning: .*; its last known versions are kept$" "$err" || true)
	[ "$lines" = 1 ] || { [ "$rc" = 4 ] && [ "$lines" = "$warned" ]; } ||
		{ echo "$lines lines" && return 1; }
	# pull and fetch go on past a member they cannot read: a warning naming it, exit 4
	grep -q -e "^skillsync: " -e "^warning: .*; its last known versions are kept$" "$err" ||
		{ echo "not a skillsync: line" && return 1; }
	# a server's bad answer is said as such, never as a failure of the local state
	! grep -q "local state:" "$err" || { echo "the local state blamed: $(cat "$err")" && return 1; }
}

# count <command> <kind> <rc>: one more faulted run that completed (0) or stopped.
count() {
	if [ "$3" = 0 ]; then
		survived[$1]=$((${survived[$1]:-0} + 1))
		done_by["$1 $2"]=$((${done_by["$1 $2"]:-0} + 1))
	else
		stopped[$1]=$((${stopped[$1]:-0} + 1))
		stopped_by["$1 $2"]=$((${stopped_by["$1 $2"]:-0} + 1))
	fi
}

# view <dir> <ls|status>: that command's --json output in clone <dir>, with what differs
# between two accounts (DID, handle, record CIDs and times) blanked.
view() {
	local who=me
	[ "$1" != push-twin ] || who=twin
	(cd "$1" && as "$who" "$2" --json 2>&1) |
		sed -E "s/$me_did|$twin_did|$me_handle|$twin_handle/ME/g; s/\"(cid|updatedAt)\":\"[^\"]*\"/\1/g"
}

# same <a> <b>: the two clones hold the same working tree, committed tree, view and status.
same() {
	local a=$1 b=$2 what
	diff -r -x .git "$a" "$b" >/dev/null || { echo "working trees differ" && return 1; }
	[ "$(git -C "$a" rev-parse 'HEAD^{tree}')" = "$(git -C "$b" rev-parse 'HEAD^{tree}')" ] ||
		{ echo "committed trees differ" && return 1; }
	for what in ls status; do
		[ "$(view "$a" "$what")" = "$(view "$b" "$what")" ] ||
			{ echo "'$what --json' differs" && return 1; }
	done
}

# verdict <command> <kind> <at> <problem or empty>
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
	else
		cat "$work/err" >&2
		fail "$id: $problem"
	fi
}

# inject <kind> <at>: kind 503x is a 503 on every request from <at> on.
inject() {
	if [ "$1" = 503x ]; then ss_fault 503 "$2" 0; else ss_fault "$1" "$2"; fi
}

# cases <command> <requests>: the (kind, index) pairs to run, one "kind at" a line.
cases() {
	local n=$2 k i pool=()
	for k in "${every[@]}"; do
		for ((i = 1; i <= n; i++)); do echo "$k $i"; done
	done
	for k in "${others[@]}"; do
		for ((i = 1; i <= n; i++)); do pool+=("$k $i"); done
	done
	((${#pool[@]})) || return 0
	RANDOM=$seed
	for ((i = 0; i < sample && ${#pool[@]}; i++)); do
		k=$((RANDOM % ${#pool[@]}))
		echo "${pool[$k]}"
		pool=("${pool[@]:0:$k}" "${pool[@]:$((k + 1))}")
	done
}

# -- clone: of the authority, into an empty directory each time; the rerun is the same command.
clone_cases() {
	local ref_ls ref_status ref_log
	ss_fault_clear
	as me clone "$auth_handle" ref >/dev/null 2>&1 || fail "reference clone"
	n=$(ss_fault_count)
	ref_ls=$(view ref ls)
	ref_status=$(view ref status)
	ref_log=$(git -C ref log --format=%s)
	while read -r kind at; do
		rm -rf c c.skillsync-partial
		inject "$kind" "$at"
		rc=0
		faulted "$kind" me clone "$auth_handle" c >/dev/null 2>err || rc=$?
		hits=$(ss_fault_hits)
		injected=$((injected + hits))
		ss_fault_clear
		problem=$(check_stop "$kind" "$rc" err) || true
		[ "$hits" != 0 ] || problem="no fault injected: fewer than $at requests"
		count clone "$kind" "$rc"
		if [ -z "$problem" ] && [ "$rc" != 0 ]; then
			as me clone "$auth_handle" c >/dev/null 2>"$work/err2" ||
				problem="the rerun failed: $(cat "$work/err2")"
		fi
		[ -n "$problem" ] || diff -r -x .git c ref >/dev/null || problem="working trees differ"
		[ -n "$problem" ] || [ "$(view c ls)" = "$ref_ls" ] || problem="'ls --json' differs"
		[ -n "$problem" ] || [ "$(view c status)" = "$ref_status" ] || problem="'status --json' differs"
		[ -n "$problem" ] || [ "$(git -C c log --format=%s)" = "$ref_log" ] || problem="histories differ"
		verdict clone "$kind" "$at" "$problem"
	done < <(cases clone "$n")
	rm -rf ref c
}
[[ $commands != *" clone "* ]] || clone_cases

# -- pull: each case, the authority changes a skill and adds one; the twin clone pulls without faults.
# Both clones keep the same uncommitted edit, which the pull must leave alone.
pull_cases() {
	as me clone "$auth_handle" ref >/dev/null 2>&1 || fail "reference clone"
	cp -a ref p
	echo "an uncommitted edit" >>ref/steady/SKILL.md
	echo "an uncommitted edit" >>p/steady/SKILL.md
	step=0
	change() {
		step=$((step + 1))
		skill src/drift drift "version $step"
		skill src/m1skill m1skill "version $step"
		put auth src/drift
			}
	change
	ss_fault_clear
	(cd ref && as me pull --quiet >/dev/null) || fail "reference pull"
	n=$(ss_fault_count)
	(cd p && as me pull --quiet >/dev/null) || fail "probe pull"
	while read -r kind at; do
		change
		(cd ref && as me pull --quiet >/dev/null) || fail "reference pull"
		inject "$kind" "$at"
		rc=0
		(cd p && faulted "$kind" me pull --quiet) >/dev/null 2>err || rc=$?
		hits=$(ss_fault_hits)
		injected=$((injected + hits))
		ss_fault_clear
		problem=$(check_stop "$kind" "$rc" err) || true
		[ "$hits" != 0 ] || problem="no fault injected: fewer than $at requests"
		count pull "$kind" "$rc"
		if [ -z "$problem" ] && [ "$rc" != 0 ]; then
			(cd p && as me pull --quiet) >/dev/null 2>"$work/err2" ||
				problem="the rerun failed: $(cat "$work/err2")"
		fi
		[ -n "$problem" ] || problem=$(same p ref) || true
		[ -n "$problem" ] || [ "$(git -C p rev-parse 'refs/remotes/space/main^{tree}')" = \
			"$(git -C ref rev-parse 'refs/remotes/space/main^{tree}')" ] || problem="tracking trees differ"
		[ -n "$problem" ] || grep -q "an uncommitted edit" p/steady/SKILL.md || problem="the edit is gone"
		verdict pull "$kind" "$at" "$problem"
	done < <(cases pull "$n")
}
[[ $commands != *" pull "* ]] || pull_cases

# records <did>: <did>'s skill records on the server by key, without their times.
records() {
	ss_records "$1" | python3 -c '
import json, sys
out = {}
for r in json.load(sys.stdin)["records"]:
    v = r["value"]
    for k in ("createdAt", "updatedAt"):
        v.pop(k, None)
    out[r["uri"].rsplit("/", 1)[1]] = v
print(json.dumps(out, sort_keys=True))'
}
# Three files of ~190 KB for the pushed skills.
for x in 1 2 3; do
	python3 -c 'import sys; sys.stdout.write(("data %s line\n" % sys.argv[1]) * 14000)' "$x" >"big$x.txt"
done

# -- push: me (through the proxy, faulted) and twin (through the proxy, no fault) make the same
# commit each case: two new skills of three ~190 KB files each (two applyWrites batches), an
# update, and the previous case's skills deleted. Their records must end up the same.
push_cases() {
	for who in me twin; do
		(cd "$work" && as "$who" clone "$auth_handle" "push-$who" >/dev/null 2>&1) || fail "clone as $who"
		echo "an uncommitted edit" >>"push-$who/steady/SKILL.md"
	done
	step=0
	edit() {
		local dir=$1 s x
		for s in a b; do
			skill "$dir/k$step$s" "k$step$s" "case $step"
			for x in 1 2 3; do cp "big$x.txt" "$dir/k$step$s/data$x.txt"; done
		done
		skill "$dir/mine" mine "version $step"
		rm -rf "$dir/k$((step - 1))a" "$dir/k$((step - 1))b"
		(cd "$dir" && as "${dir#push-}" commit -m "case $step" "k${step}a" "k${step}b" mine \
			$( ((step > 1)) && echo "k$((step - 1))a k$((step - 1))b") >/dev/null) ||
			fail "commit in $dir"
	}
	# No one else writes to me's repo: "pull first" (exit 3) is never true, and the rerun
	# finishes the push alone.
	converge() {
		as me push >/dev/null 2>"$work/err2"
	}
	# resync: after a known failure, a fresh clone of me made the same as the twin again.
	resync() {
		local names
		rm -rf push-me
		as me clone "$auth_handle" push-me >/dev/null 2>&1 || fail "resync clone"
		names=$(ls push-me push-twin | grep -v -e : -e '^steady$' -e '^$' | sort -u)
		find push-me -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
		tar -C push-twin --exclude=.git -cf - . | tar -C push-me -xf -
		# shellcheck disable=SC2086
		(cd push-me && { as me commit -m resync $names >"$work/err2" 2>&1 ||
			grep -q "^nothing to commit" "$work/err2"; } && converge) ||
			fail "resync: $(cat "$work/err2")"
	}
	step=1
	edit push-me
	edit push-twin
	ss_fault_clear
	(cd push-twin && as twin push >/dev/null) || fail "twin push"
	n=$(ss_fault_count)
	(cd push-me && as me push >/dev/null) || fail "probe push"
	push_n=$n
	while read -r kind at; do
		step=$((step + 1))
		edit push-me
		edit push-twin
		(cd push-twin && as twin push >/dev/null) || fail "twin push"
		mine=$(git -C push-me rev-parse HEAD)
		inject "$kind" "$at"
		rc=0
		(cd push-me && faulted "$kind" me push) >/dev/null 2>err || rc=$?
		hits=$(ss_fault_hits)
		injected=$((injected + hits))
		ss_fault_clear
		problem=$(check_stop "$kind" "$rc" err) || true
		[ "$hits" != 0 ] || problem="no fault injected: fewer than $at requests"
		count push "$kind" "$rc"
		if [ -z "$problem" ] && [ "$rc" != 0 ]; then
			(cd push-me && converge) || problem="the rerun failed: $(cat "$work/err2")"
		fi
		[ -n "$problem" ] || problem=$(same push-me push-twin) || true
		[ -n "$problem" ] || git -C push-me merge-base --is-ancestor "$mine" HEAD ||
			problem="commit $mine is lost"
		records "$me_did" >rec-me
		records "$twin_did" >rec-twin
		[ -n "$problem" ] || cmp -s rec-me rec-twin ||
			problem="the server's records differ: $(python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for k in sorted(a.keys() | b.keys()):
    if a.get(k) != b.get(k):
        x, y = a.get(k) or {}, b.get(k) or {}
        print(k, [(f, str(x.get(f))[:60], str(y.get(f))[:60]) for f in x.keys() | y.keys() if x.get(f) != y.get(f)])' rec-me rec-twin)"
		verdict push "$kind" "$at" "$problem"
		[ -z "$problem" ] || resync
	done < <(cases push "$n")
}
[[ $commands != *" push "* ]] || push_cases

# -- restart: the PDS stopped and started again (same data, keys and address: SIGUSR2 to
# tests/pds/server.js) while the second of a push's two batches reaches it. On a PDS of its
# own: restarting the shared one would disturb the tests beside this one. The push completes
# (its retries outlast the restart) or stops with one line and exit 4; after a rerun, the
# server holds both skills with the commit's subject in their notes, and nothing is left to
# push.
restart_case() {
	local dir=$work/pds-restart
	mkdir "$dir"
	trap 'ss_proxy_stop; "$SS_SOURCE_DIR"/tests/pds/stop "$work/pds-restart" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
	"$SS_SOURCE_DIR"/tests/pds/start "$dir" >/dev/null || fail "restart: the PDS did not start"
	(
		export SS_PDS_INFO=$dir/pds.json SKILLSYNC_CONFIG_HOME=$work/config-restart
		ss_pds_env
		ss_accounts "$work" "" rauth rme
		put rauth src/steady
		SKILLSYNC_PASSWORD=$(ss_json rme.json password) "$SKILLSYNC" login \
			"$(ss_json rme.json handle)" >/dev/null
		"$SKILLSYNC" clone "$(ss_json rauth.json handle)" r >/dev/null 2>&1 || fail "restart: clone"
		cd r
		for s in ra rb; do
			skill "$s" "$s" "restart case"
			for x in 1 2 3; do cp "../big$x.txt" "$s/data$x.txt"; done
		done
		"$SKILLSYNC" commit -m "Restart case" ra rb >/dev/null || fail "restart: commit"
		me=$(ss_json ../rme.json did)
		"$SKILLSYNC" push >/dev/null 2>"$work/err" &
		pusher=$!
		# paused as soon as the PDS answered the first batch, then restarted
		server=$(cat "$dir/server.pid")
		until grep -q "applyWrites" "$dir/pds.log" || ! kill -0 "$pusher" 2>/dev/null; do
			sleep 0.01
		done
		kill -STOP "$server"
		kill -USR2 "$server"
		kill -CONT "$server"
		rc=0
		wait "$pusher" || rc=$?
		for _ in $(seq 300); do
			! grep -q "^pds server: restarted" "$dir/pds.log" || break
			sleep 0.1
		done
		grep -q "^pds server: restarted" "$dir/pds.log" || fail "restart: the PDS did not come back"
		problem=$(check_stop restart "$rc" "$work/err") || fail "restart: the push: $problem"
		after=$(sed -n '/^pds server: restarted/,$p' "$dir/pds.log" | grep -c "applyWrites" || true)
		echo "  restart: the push exited $rc$([ "$rc" = 0 ] || echo ": $(cat "$work/err")"); $after applyWrites after the restart"
		[ "$rc" = 0 ] || "$SKILLSYNC" push >/dev/null 2>"$work/err2" || fail "restart: the rerun: $(cat "$work/err2")"
		ss_records "$me" | python3 -c '
import json, sys
recs = {r["uri"].rsplit("/", 1)[1]: r["value"] for r in json.load(sys.stdin)["records"]}
assert sorted(recs) == ["ra", "rb"], sorted(recs)
for k, v in recs.items():
    assert v["note"].startswith("Restart case\n"), (k, v["note"])' || fail "restart: the server's records"
		"$SKILLSYNC" status | grep -q "Your branch is up to date with the space." ||
			fail "restart: status: $("$SKILLSYNC" status)"
	) || exit 1
}
[[ $commands != *" restart "* ]] || restart_case

# -- The verified floor (docs/SECURITY.md): answers that lie, through the proxy's tampering.
# tamper <kind> [<did> [<rkey>]]: the proxy tampers with the answers about <did> (none: stops).
tamper() {
	curl -sf -G "$proxy/_fault/tamper" --data-urlencode "kind=$1" \
		--data-urlencode "did=${2:-}" --data-urlencode "rkey=${3:-}" >/dev/null || fail "tamper $1"
}
# floor_pull <dir> <rc> [--json]: a pull in clone <dir> that must exit <rc>, its stdout in
# $work/out, its stderr in $work/err.
floor_pull() {
	local rc=0
	(cd "$1" && as me pull ${3:-}) >"$work/out" 2>"$work/err" || rc=$?
	[ "$rc" = "$2" ] || fail "$1: the pull exited $rc, not $2: $(cat "$work/err")"
}
# floor_line <words>: the last pull's stderr is one line naming the authority, saying <words>.
floor_line() {
	[ "$(grep -c . "$work/err")" = 1 ] && grep -q "'$auth_handle'" "$work/err" &&
		grep -q -- "$1" "$work/err" ||
		fail "not one line naming the authority saying '$1': $(cat "$work/err")"
	echo "  refused: $(cat "$work/err")"
}
# floor_json <python expression on j, the pull's --json>: true, else the test fails.
floor_json() {
	python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' \
		"$work/out" "$1" || fail "the pull's --json: not $1: $(cat "$work/out")"
}

# -- rollback: a lying head, then a replay. The proxy keeps the authority's repo as it is
# (an older, genuinely signed commit); the authority writes; a pull takes it (the floor rises
# to it). The authority writes again, and a pull whose getLatestCommit names the real head with
# a low revision takes it (the low revision is only a hint where to look); the next pull is served the older repo on every getRepo (with since and without): refused,
# one line, exit 4, the old version does not come back; an honest pull after it is clean.
rollback_case() {
	skill src/rb rb "version old"
	put auth src/rb
	as me clone "$auth_handle" rb >/dev/null 2>&1 || fail "rollback: clone"
	tamper record "$auth_did"
	skill src/rb rb "version new"
	put auth src/rb
	floor_pull rb 0
	grep -qx "version new" rb/rb/SKILL.md || fail "rollback: the new version did not arrive"
	skill src/rb rb "version newest"
	put auth src/rb
	tamper low-rev "$auth_did"
	floor_pull rb 0
	grep -qx "version newest" rb/rb/SKILL.md || fail "rollback: the newest version did not arrive"
	tamper replay-all "$auth_did"
	floor_pull rb 4
	floor_line "older than the verified revision"
	grep -qx "version newest" rb/rb/SKILL.md || fail "rollback: the old version came back"
	# the same with --json: the member and why in "failed"
	floor_pull rb 4 --json
	floor_json "[f['did'] for f in j['fetch']['failed']] == ['$auth_did'] and 'older than the verified revision' in j['fetch']['failed'][0]['reason']"
	grep -qx "version newest" rb/rb/SKILL.md || fail "rollback: the old version came back"
	tamper ""
	floor_pull rb 0
	grep -qx "version newest" rb/rb/SKILL.md || fail "rollback: the honest pull after the replay"
	(cd rb && as me verify) >"$work/out" 2>&1 || fail "rollback: verify: $(cat "$work/out")"
	rm -rf rb
}
[[ $commands != *" rollback "* ]] || rollback_case

# -- withheld: the block of a record the signed tree names left out of an incremental pull's
# answers, once. That record is refused (one line naming it, exit 4: a failed read), its last
# good version kept, the rest synced; the next honest pull asks again and brings it, and
# verify finds the clone in line with the signed tree.
withheld_case() {
	skill src/wh wh "withheld 0"
	skill src/wh2 wh2 "beside 0"
	put auth src/wh src/wh2
	as me clone "$auth_handle" wh >/dev/null 2>&1 || fail "withheld: clone"
	skill src/wh wh "withheld 1"
	skill src/wh2 wh2 "beside 1"
	put auth src/wh src/wh2
	tamper withhold "$auth_did" wh
	floor_pull wh 4
	floor_line "skipped 'wh' of"
	grep -qx "withheld 0" wh/wh/SKILL.md || fail "withheld: the last good version did not stay"
	grep -qx "beside 1" wh/wh2/SKILL.md || fail "withheld: the rest did not sync"
	tamper ""
	floor_pull wh 0
	grep -qx "withheld 1" wh/wh/SKILL.md || fail "withheld: the next pull did not bring the record"
	(cd wh && as me verify) >"$work/out" 2>&1 || fail "withheld: verify: $(cat "$work/out")"
	# again, with --json: the record refused, and by whom
	skill src/wh wh "withheld 2"
	put auth src/wh
	tamper withhold "$auth_did" wh
	floor_pull wh 4 --json
	floor_json "j['fetch']['refused'] == 1 and [(s['did'], s['rkey'], s['refused']) for s in j['fetch']['skips']] == [('$auth_did', 'wh', True)]"
	tamper ""
	floor_pull wh 0
	grep -qx "withheld 2" wh/wh/SKILL.md || fail "withheld: the pull after the second refusal"
	(cd wh && as me verify) >"$work/out" 2>&1 || fail "withheld: verify: $(cat "$work/out")"
	rm -rf wh
}
[[ $commands != *" withheld "* ]] || withheld_case

# One line per command and kind: cases that completed, stopped with one line, known failures.
for key in $(printf '%s\n' "${!done_by[@]}" "${!stopped_by[@]}" "${!xfail_by[@]}" | tr ' ' : | sort -u); do
	key=${key/:/ }
	echo "  $key: completed ${done_by[$key]:-0}, stopped ${stopped_by[$key]:-0}, known failures ${xfail_by[$key]:-0}"
done
echo "fault matrix (seed $seed): $passed cases passed, $xfail known failures," \
	"$injected faults injected; completed: clone ${survived[clone]:-0}," \
	"pull ${survived[pull]:-0}, push ${survived[push]:-0}; stopped with one line:" \
	"clone ${stopped[clone]:-0}, pull ${stopped[pull]:-0}, push ${stopped[push]:-0}"
