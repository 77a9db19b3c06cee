#!/usr/bin/env bash
# bench/corpus/measure.sh: measures a built skillsync over the corpus of real public skills
# that bench/corpus/fetch.sh brought (docs/CORPUS.md). Five steps, each skill on its own, so
# that a skill that fails (or crashes skillsync) is counted and the run goes on:
#   spec      the specification's reference validator (fetch.sh brings it; it needs Python's
#             strictyaml, else the step is skipped): which skills are valid by the spec;
#   validate  `skillsync validate --json` of each skill: valid, refused and why;
#   audit     `skillsync audit --json` of each skill: findings by rule and level, the skills
#             with a high finding, where each high finding sits (Markdown prose or code);
#   e2e       on a test PDS of its own (tests/pds/start): per repository of the corpus an
#             account "bob<n>" commits its skills one by one in its clone (a refused one is
#             taken out and counted) and pushes; "me" clones bob's space; bob appends one
#             sentence to every SKILL.md (a prose-only edit), commits and pushes; me pulls and
#             `skillsync review --json` says how many of those edits are held;
#   roundtrip me's clone, right after the clone, against the corpus: file by file,
#             byte-identical or not (SKILL.md apart), executable bit kept or not.
# The raw output of every command is kept under <out>/raw; bench/corpus/report.py reads it and
# writes <out>/report.json (every figure), the TSV lists and <out>/summary.md.
# Usage (from anywhere; SKILLSYNC names the binary to measure, ss-fill is not needed):
#   SKILLSYNC=build/skillsync bench/corpus/measure.sh [--out <dir>] [--no-e2e] [--keep] <corpus>
# <out> defaults to ./corpus-report (emptied first). --keep leaves the accounts' clones in
# <out>/work (bob/<repo>, me/<repo>) to look into. Exit status 0 when the run completed
# (whatever the figures; a test PDS that does not start skips e2e and says so), 1 when it
# could not run (no binary, no corpus).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
out=corpus-report e2e=1 keep=0
usage() {
	echo "usage: SKILLSYNC=<binary> bench/corpus/measure.sh [--out <dir>] [--no-e2e] [--keep] <corpus>" >&2
	exit 129
}
while [ $# -gt 0 ]; do
	case $1 in
	--out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
	--no-e2e) e2e=0; shift ;;
	--keep) keep=1; shift ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || usage
die() {
	echo "measure.sh: $*" >&2
	exit 1
}
if [ -z "${SKILLSYNC:-}" ] || [ ! -x "$SKILLSYNC" ]; then
	die "set SKILLSYNC to a built skillsync"
fi
S=$(cd "$(dirname "$SKILLSYNC")" && pwd)/$(basename "$SKILLSYNC")
corpus=$(cd "$1" 2>/dev/null && pwd) || die "no corpus at $1 (bench/corpus/fetch.sh brings it)"
repos=()
for d in "$corpus"/*__*/; do
	[ -d "$d" ] && repos+=("$(basename "$d")")
done
[ "${#repos[@]}" -gt 0 ] || die "no repository in $corpus (bench/corpus/fetch.sh brings it)"
{ rm -rf "$out" && mkdir -p "$out/raw"; } || die "cannot write $out"
out=$(cd "$out" && pwd)
raw=$out/raw
real_home=$HOME
if [ "$keep" = 1 ]; then
	work=$out/work && mkdir -p "$work"
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/skillsync-corpus.XXXXXX")
fi
# shellcheck disable=SC2064 # $work is set for good
trap "finish '$work'" EXIT
finish() {
	[ -z "${pdsdir:-}" ] || HOME=$real_home "$src/tests/pds/stop" "$pdsdir" >/dev/null 2>&1
	[ "$keep" = 1 ] || rm -rf "$1"
}
# skillsync sees only what this run sets: its config, a home of its own (no agent folder of
# the person running this is touched), a fixed git identity, no gc after commits.
while read -r v; do unset "$v"; done < <(compgen -v SKILLSYNC_)
unset CLAUDE_CONFIG_DIR CODEX_HOME XDG_CONFIG_HOME
export SKILLSYNC_CONFIG_HOME=$work/config LC_ALL=C.UTF-8 NO_COLOR=1
export GIT_AUTHOR_NAME=Corpus GIT_AUTHOR_EMAIL=corpus@example.test
export GIT_COMMITTER_NAME=Corpus GIT_COMMITTER_EMAIL=corpus@example.test
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=gc.auto GIT_CONFIG_VALUE_0=0
mkdir -p "$work/home"
ss() { HOME=$work/home timeout "${SS_TIMEOUT:-600}" "$S" "$@"; }
json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }

# run <prefix> <command>...: the command's stdout, stderr, exit status and wall time (ms) in
# <prefix>.out, .err, .rc and .ms; returns its status.
run() {
	local p=$1 rc=0 t0
	shift
	mkdir -p "$(dirname "$p")"
	t0=$(date +%s%N)
	"$@" >"$p.out" 2>"$p.err" || rc=$?
	echo $((($(date +%s%N) - t0) / 1000000)) >"$p.ms"
	echo "$rc" >"$p.rc"
	return "$rc"
}

# step <name>: prints the step and keeps its start for the times in meta.
step() {
	echo "measure.sh: $1..." >&2
	echo "$1 $SECONDS" >>"$raw/steps"
}

{
	printf 'date\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	printf 'version\t%s\n' "$("$S" --version 2>&1)"
	printf 'checkout\t%s\n' "$(git -C "$src" rev-parse HEAD 2>/dev/null)"
	printf 'corpus\t%s\n' "$(basename "$corpus")"
} >"$raw/meta.tsv"
cp "$corpus/corpus.tsv" "$raw/corpus.tsv" 2>/dev/null

# The reference validator needs strictyaml: the first python3 on PATH, else Debian's.
py=
for p in python3 /usr/bin/python3; do
	if "$p" -c 'import strictyaml' 2>/dev/null; then
		py=$p
		break
	fi
done
step spec
if [ -n "$py" ] && [ -d "$corpus/.skills-ref/skills_ref" ]; then
	PYTHONPATH=$corpus/.skills-ref run "$raw/spec" "$py" "$here/report.py" spec "$corpus"
else
	echo "measure.sh: no reference validator (or no strictyaml): the spec step is skipped" >&2
fi

step validate
for r in "${repos[@]}"; do
	for d in "$corpus/$r"/*/; do
		s=$(basename "$d")
		SS_TIMEOUT=120 run "$raw/validate/$r/$s" ss validate --json "$corpus/$r/$s"
	done
done

step audit
for r in "${repos[@]}"; do
	for d in "$corpus/$r"/*/; do
		s=$(basename "$d")
		(cd "$corpus/$r" && SS_TIMEOUT=120 run "$raw/audit/$r/$s" ss audit --json "$s")
	done
done

# add_sentence <SKILL.md>: one sentence appended at the end of the body, in the file's own
# line ending.
add_sentence() {
	local eol=$'\n'
	grep -q $'\r$' "$1" && eol=$'\r\n'
	[ -z "$(tail -c1 "$1")" ] || printf '%s' "$eol" >>"$1"
	printf '%sThis sentence was added by the corpus measurement.%s' "$eol" "$eol" >>"$1"
}

# e2e_repo <n> <repo>: bob-<n> shares the repository's skills, me clones them, bob edits
# them all, me pulls.
e2e_repo() {
	local n=$1 r=$2 e=$raw/e2e/$2 bob me_dir handle s d
	bob=$work/bob/$r me_dir=$work/me/$r
	mkdir -p "$e" "$work/bob" "$work/me"
	(umask 077 && HOME=$real_home "$src/tests/pds/account" "$info" "bob$n" >"$work/bob$n.json") ||
		{ echo "no account" >"$e/setup"; return; }
	handle=$(json "$work/bob$n.json" handle)
	SKILLSYNC_PASSWORD=$(json "$work/bob$n.json" password) run "$e/login" ss login "$handle" ||
		return
	run "$e/bob-clone" ss clone "$handle" "$bob" --as "$handle" --quiet || return
	for d in "$corpus/$r"/*/; do
		s=$(basename "$d")
		cp -a "$corpus/$r/$s" "$bob/$s"
		(cd "$bob" && run "$e/commit/$s" ss commit -m "Add $s" -- "$s") || rm -rf "${bob:?}/$s"
	done
	(cd "$bob" && run "$e/push" ss push --json) || return
	(cd "$work/me" && run "$e/clone" ss clone "$handle" "$me_dir" --as "$me_handle" --quiet) || return
	python3 "$here/report.py" roundtrip "$corpus/$r" "$me_dir" "$bob" >"$e/roundtrip.tsv" 2>"$e/roundtrip.err"
	for d in "$bob"/*/; do
		[ -f "$d/SKILL.md" ] && add_sentence "$d/SKILL.md"
	done
	if ! (cd "$bob" && run "$e/edit-commit" ss commit -m "One more sentence"); then
		for d in "$bob"/*/; do
			s=$(basename "$d")
			(cd "$bob" && run "$e/edit-commit/$s" ss commit -m "One more sentence" -- "$s")
		done
	fi
	(cd "$bob" && run "$e/edit-push" ss push --json) || return
	(cd "$me_dir" && run "$e/pull" ss pull --json)
	(cd "$me_dir" && run "$e/review" ss review --json)
	# what git says changed in me's clone, where me changed nothing
	git -C "$me_dir" status --porcelain >"$e/status-after-pull" 2>&1
	for d in "$bob"/*/; do
		s=$(basename "$d")
		[ -f "$me_dir/$s/SKILL.md" ] && grep -q 'This sentence was added by the corpus measurement\.' "$me_dir/$s/SKILL.md" &&
			echo "$s"
	done >"$e/merged"
}

if [ "$e2e" = 1 ]; then
	step e2e
	pdsdir=$work/pds
	if HOME=$real_home run "$raw/pds-start" "$src/tests/pds/start" "$pdsdir"; then
		info=$pdsdir/pds.json
		SKILLSYNC_PLC_URL=$(json "$info" plc) SKILLSYNC_HANDLE_RESOLVER=$(json "$info" pds)
		export SKILLSYNC_PLC_URL SKILLSYNC_HANDLE_RESOLVER
		(umask 077 && HOME=$real_home "$src/tests/pds/account" "$info" me >"$work/me.json")
		me_handle=$(json "$work/me.json" handle)
		SKILLSYNC_PASSWORD=$(json "$work/me.json" password) run "$raw/e2e/login-me" ss login "$me_handle"
		i=0
		for r in "${repos[@]}"; do
			i=$((i + 1))
			echo "measure.sh: e2e $r..." >&2
			e2e_repo "$i" "$r"
		done
	else
		echo "measure.sh: the test PDS did not start: $(tail -3 "$raw/pds-start.err")" >&2
	fi
fi
step report
python3 "$here/report.py" report "$corpus" "$out" || die "the report failed"
echo "end $SECONDS" >>"$raw/steps"
echo "measure.sh: $out/summary.md, $out/report.json" >&2
