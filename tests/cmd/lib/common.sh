# tests/cmd/lib/common.sh: what the end-to-end scripts share. Source it first:
#     . "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
# Rules: secrets (passwords, tokens) never reach a process's argv: they go through files of
# mode 0600, the environment of one command, or a curl config read from stdin.

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# python3: Debian's (scripts/setup.sh installs it) rather than whatever comes first on PATH: a
# version manager's shim there (pyenv's: a bash script that runs pyenv, which runs python)
# takes ~0.35 s a start, and the scripts start python3 often (cmd_pull and cmd_push: 156
# times; those two tests took 65 s with pyenv's shim first on PATH, 21 s with Debian's).
# Through PATH (lib/bin/python3), not a shell function, so that child processes get it too
# and `python3 ... &` leaves $! naming python itself.
if [ -x /usr/bin/python3 ]; then
	PATH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/bin:$PATH
	export PATH
fi

# ss_json <file> <key>: one top-level field of a JSON file.
ss_json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

# ss_sandbox: a new temporary directory $work (removed at exit) becomes the current directory,
# with skillsync's config inside it, the fixed git identity and the test PDS's environment.
ss_sandbox() {
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	cd "$work"
	export SKILLSYNC_CONFIG_HOME=$work/config
	ss_git_identity
	ss_pds_env
}

# ss_run <expected exit> <command> <args...>: runs it with stdout in <dir>/stdout and stderr in
# <dir>/stderr (<dir>: the script's $work, else its $tmp), and fails the script, showing both,
# when it exits otherwise.
ss_run() {
	local want=$1 dir=${work:-$tmp} rc=0
	shift
	"$@" >"$dir/stdout" 2>"$dir/stderr" || rc=$?
	[ "$rc" = "$want" ] || fail "'$*' in $PWD exited $rc, not $want: $(cat "$dir/stderr" "$dir/stdout")"
}

# ss_field <name> <key>: a field of the account <name> that ss_accounts wrote into the script's
# $work (else $tmp).
ss_field() { ss_json "${work:-$tmp}/$1.json" "$2"; }

# ss_skill <name> <last line>: a valid skill directory <name> in the current directory whose
# SKILL.md ends with <last line>.
ss_skill() {
	mkdir -p "$1"
	printf -- '---\nname: %s\ndescription: Skill %s.\n---\n# %s\n\n%s\n' "$1" "$1" "$1" "$2" >"$1/SKILL.md"
}

# ss_auth_change <line>: the authority of ss_push_fixture ($work/auth.json) rewrites its
# pdf-forms (testdata's basic one) with <line> appended.
ss_auth_change() {
	rm -rf "$work/authsrc" && mkdir -p "$work/authsrc"
	cp -r "$SS_TESTDATA/skills/valid/basic/pdf-forms" "$work/authsrc/"
	printf '\n%s\n' "$1" >>"$work/authsrc/pdf-forms/SKILL.md"
	SS_FILL_TOKEN=$(ss_json "$work/auth.json" accessJwt) "$(dirname "$SKILLSYNC")/ss-fill" \
		--pds "$pds" --did "$(ss_json "$work/auth.json" did)" --put "$work/authsrc/pdf-forms" >/dev/null
}

# ss_pds_env: sets $pds and $plc from $SS_PDS_INFO and points skillsync's identity resolution
# (SKILLSYNC_PLC_URL, SKILLSYNC_HANDLE_RESOLVER) at the test PDS.
ss_pds_env() {
	: "${SS_PDS_INFO:?}"
	pds=$(ss_json "$SS_PDS_INFO" pds)
	plc=$(ss_json "$SS_PDS_INFO" plc)
	export SKILLSYNC_PLC_URL=$plc SKILLSYNC_HANDLE_RESOLVER=$pds
}

# ss_git_identity: a fixed author and committer for the commits the scripts make.
ss_git_identity() {
	export GIT_AUTHOR_NAME=Tester GIT_AUTHOR_EMAIL=t@example.test
	export GIT_COMMITTER_NAME=Tester GIT_COMMITTER_EMAIL=t@example.test
}

# ss_accounts <dir> <prefix> <name>...: a fresh account on the test PDS per name (its handle
# made from <prefix><name>), its JSON (did, handle, password, accessJwt) in <dir>/<name>.json,
# mode 0600.
ss_accounts() {
	local dir=$1 prefix=$2 name
	shift 2
	for name; do
		(umask 077 && "${SS_PDS_TOOLS:-$SS_SOURCE_DIR/tests/pds}/account" "$SS_PDS_INFO" \
			"$prefix$name" >"$dir/$name.json")
	done
}

# ss_push_fixture: in the current directory, accounts "auth" (the authority, its repo filled
# with testdata's basic skills) and "me" (signed in), and me's clone of the space in ./space,
# which becomes the current directory. Sets $me_did. Needs ss_pds_env and SKILLSYNC_CONFIG_HOME.
ss_push_fixture() {
	local top=$PWD
	ss_accounts "$top" "" auth me
	me_did=$(ss_json "$top/me.json" did)
	SS_FILL_TOKEN=$(ss_json "$top/auth.json" accessJwt) "$(dirname "$SKILLSYNC")/ss-fill" \
		--pds "$pds" --did "$(ss_json "$top/auth.json" did)" \
		--put "$SS_TESTDATA"/skills/valid/basic/*/ >/dev/null
	SKILLSYNC_PASSWORD=$(ss_json "$top/me.json" password) "$SKILLSYNC" login \
		"$(ss_json "$top/me.json" handle)" >/dev/null
	"$SKILLSYNC" clone "$(ss_json "$top/auth.json" handle)" space >/dev/null 2>&1 || fail "clone"
	cd space
}

# ss_curl_auth <token> <curl arguments>...: curl with "Authorization: Bearer <token>" given in
# a config on stdin (printf is a shell builtin), so the token is in no argv that `ps` shows.
ss_curl_auth() {
	local token=$1
	shift
	printf 'header = "Authorization: Bearer %s"\n' "$token" | curl -K - "$@"
}

# ss_records <did>: every garden.engram.skill record of <did> on $pds, all pages, as one JSON
# object {"records": [...]} on stdout.
ss_records() {
	python3 - "$pds" "$1" <<'PY'
import json, sys, urllib.request
pds, did = sys.argv[1:3]
cursor, out = None, []
while True:
    url = f"{pds}/xrpc/com.atproto.repo.listRecords?repo={did}&collection=garden.engram.skill&limit=100"
    if cursor:
        url += "&cursor=" + cursor
    page = json.load(urllib.request.urlopen(url))
    if not page["records"]:
        break
    out += page["records"]
    cursor = page.get("cursor")
    if not cursor:
        break
print(json.dumps({"records": out}))
PY
}

# ss_sql <database> <query>: the rows, one a line, columns separated by '|' (Python's sqlite3
# module: the tests need no sqlite3 command). A missing database or table fails the script.
ss_sql() {
	python3 - "$1" "$2" <<'PY'
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
for row in db.execute(sys.argv[2]):
    print("|".join("" if v is None else str(v) for v in row))
PY
}
