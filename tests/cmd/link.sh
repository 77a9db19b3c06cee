#!/usr/bin/env bash
# needs: pds
# link and unlink on a fake home and a project holding folders of the same names as skills
# (never overwritten), status on missing and replaced links, and pull keeping the folders
# current: a refreshed copy, the link of a skill that left the view removed, a new skill
# named and not linked, then linked under --auto; agent folders that are symbolic links, refused
# (docs/AGENTS.md).
set -euo pipefail
. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
unset CLAUDE_CONFIG_DIR CODEX_HOME XDG_CONFIG_HOME SKILLSYNC_LOCK_WAIT SKILLSYNC_TEST_CRASH

ss_sandbox

# auth_put <name> <line>...: the authority writes skill <name> (its SKILL.md ending with line).
auth_put() {
	rm -rf "$work/authsrc" && mkdir -p "$work/authsrc" && (cd "$work/authsrc" && ss_skill "$1" "$2")
	SS_FILL_TOKEN=$(ss_json "$work/auth.json" accessJwt) "$(dirname "$SKILLSYNC")/ss-fill" \
		--pds "$pds" --did "$(ss_json "$work/auth.json" did)" --put "$work/authsrc/$1" >/dev/null
}
auth_del() {
	ss_curl_auth "$(ss_json "$work/auth.json" accessJwt)" -fsS -X POST -H 'Content-Type: application/json' \
		--data-binary "{\"repo\":\"$(ss_json "$work/auth.json" did)\",\"collection\":\"garden.engram.skill\",\"rkey\":\"$1\"}" \
		"$pds/xrpc/com.atproto.repo.deleteRecord" >/dev/null || fail "deleteRecord $1"
}
link_to() { # link_to <path> <target>: <path> is a symbolic link to <target>
	[ -L "$1" ] && [ "$(readlink "$1")" = "$2" ] || fail "$1 is not a link to $2: $(ls -ld "$1" 2>&1)"
}

ss_push_fixture # ./space: the clone, with pdf-forms from the authority
# A fake home, once the accounts are made (the PDS tools live in the real home's cache).
export HOME=$work/home
mkdir -p "$HOME"
auth_put alpha "first"
auth_put beta "first"
ss_run 0 "$SKILLSYNC" pull
space=$work/space

# What is already there: a folder of the person's own in the project's .claude/skills, and a
# link of theirs in the home's .claude/skills, with the names of skills.
mkdir -p "$work/.claude/skills/alpha" "$HOME/.claude/skills"
echo mine >"$work/.claude/skills/alpha/SKILL.md"
ln -s /nowhere "$HOME/.claude/skills/beta"

# Project-level, default agents (claude, agents): into the clone's parent, one link a skill.
ss_run 0 "$SKILLSYNC" link
grep -q "Linked 2 skills into $work/.claude/skills (Claude Code)" "$work/stdout" || fail "link said: $(cat "$work/stdout")"
grep -q "Linked 3 skills into $work/.agents/skills" "$work/stdout" || fail "link said: $(cat "$work/stdout")"
grep -q "warning: skipped '$work/.claude/skills/alpha': it exists and skillsync did not make it" "$work/stderr" ||
	fail "no warning for the person's folder: $(cat "$work/stderr")"
[ "$(cat "$work/.claude/skills/alpha/SKILL.md")" = mine ] || fail "the person's folder was touched"
for s in beta pdf-forms; do link_to "$work/.claude/skills/$s" "$space/$s"; done
for s in alpha beta pdf-forms; do link_to "$work/.agents/skills/$s" "$space/$s"; done
# Again: nothing new, nothing replaced.
ss_run 0 "$SKILLSYNC" link
grep -q "Linked 0 skills into $work/.claude/skills (Claude Code), 2 already there" "$work/stdout" || fail "second link: $(cat "$work/stdout")"
# codex and cursor share the project's .agents/skills: one pass.
ss_run 0 "$SKILLSYNC" link --agent codex --agent cursor
[ "$(grep -c 'skills into' "$work/stdout")" = 1 ] || fail "shared folder linked twice: $(cat "$work/stdout")"
ss_run 129 "$SKILLSYNC" link --agent nosuch
grep -q "unknown agent 'nosuch' (one of: claude, agents, codex, cursor, " "$work/stderr" || fail "link --agent nosuch: $(cat "$work/stderr")"

# Global copies for claude: the person's link to /nowhere stays.
ss_run 0 "$SKILLSYNC" link --global --agent claude --copy
grep -q "Copied 2 skills into $HOME/.claude/skills" "$work/stdout" || fail "copy said: $(cat "$work/stdout")"
[ "$(readlink "$HOME/.claude/skills/beta")" = /nowhere ] || fail "the person's link was replaced"
[ ! -L "$HOME/.claude/skills/alpha" ] && cmp -s "$HOME/.claude/skills/alpha/SKILL.md" "$space/alpha/SKILL.md" ||
	fail "no copy of alpha"

# status: nothing to say while all links are in place; then one missing, one replaced.
ss_run 0 "$SKILLSYNC" status
! grep -q "Agent links" "$work/stdout" || fail "status complains with all links in place: $(cat "$work/stdout")"
rm "$work/.agents/skills/beta"
rm "$work/.claude/skills/pdf-forms" && mkdir "$work/.claude/skills/pdf-forms"
ss_run 0 "$SKILLSYNC" status
grep -q "missing: *$work/.agents/skills/beta" "$work/stdout" || fail "status: $(cat "$work/stdout")"
grep -q "points elsewhere: *$work/.claude/skills/pdf-forms" "$work/stdout" || fail "status: $(cat "$work/stdout")"
ss_run 0 "$SKILLSYNC" status --json
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$work/stdout" || fail "status --json is not JSON"
ss_run 0 "$SKILLSYNC" link --json # makes the missing one again; the replaced one is skipped
link_to "$work/.agents/skills/beta" "$space/beta"
grep -q "skipped '$work/.claude/skills/pdf-forms': it is no longer what skillsync made there" "$work/stderr" ||
	fail "relink: $(cat "$work/stderr")"
# --json says the same per folder (docs/JSON.md).
python3 - "$work/stdout" "$work" <<'PY' || fail "link --json: $(cat "$work/stdout")"
import json, sys
doc, w = json.load(open(sys.argv[1])), sys.argv[2]
assert (doc["copy"], doc["global"], doc["auto"]) == (False, False, False), doc
f = {x["agent"]: x for x in doc["folders"]}
assert list(f) == ["claude", "agents"], f
c, a = f["claude"], f["agents"]
assert c["dir"] == w + "/.claude/skills" and c["made"] == [] and c["kept"] == ["beta"], c
assert c["skipped"] == [
    {"path": w + "/.claude/skills/alpha", "reason": "it exists and skillsync did not make it"},
    {"path": w + "/.claude/skills/pdf-forms", "reason": "it is no longer what skillsync made there"}], c
assert a["made"] == ["beta"] and a["kept"] == ["alpha", "pdf-forms"] and a["skipped"] == [], a
PY

# pull: alpha changes (the copy follows), beta leaves the view (its links go), gamma is new
# (named, not linked).
auth_put alpha "second"
auth_del beta
auth_put gamma "first"
ss_run 0 "$SKILLSYNC" pull
grep -q second "$HOME/.claude/skills/alpha/SKILL.md" || fail "the copy of alpha was not refreshed"
[ ! -e "$work/.agents/skills/beta" ] && [ ! -L "$work/.claude/skills/beta" ] || fail "beta's links stay"
[ "$(readlink "$HOME/.claude/skills/beta")" = /nowhere ] || fail "pull touched the person's link"
grep -q "unlinked '$work/.agents/skills/beta': it left the view" "$work/stderr" || fail "pull: $(cat "$work/stderr")"
grep -q "new skills not linked: gamma" "$work/stderr" || fail "pull did not name gamma: $(cat "$work/stderr")"
[ ! -e "$work/.agents/skills/gamma" ] && [ ! -e "$HOME/.claude/skills/gamma" ] || fail "gamma linked without --auto"

# --auto: the next new skill is linked by pull into every remembered folder.
ss_run 0 "$SKILLSYNC" link --auto --agent agents
link_to "$work/.agents/skills/gamma" "$space/gamma"
auth_put delta "first"
ss_run 0 "$SKILLSYNC" pull --quiet
link_to "$work/.agents/skills/delta" "$space/delta"
link_to "$work/.claude/skills/delta" "$space/delta"
cmp -s "$HOME/.claude/skills/delta/SKILL.md" "$space/delta/SKILL.md" || fail "no copy of delta"
grep -q "linked new skill '$work/.agents/skills/delta'" "$work/stderr" || fail "pull --auto: $(cat "$work/stderr")"

# unlink: exactly what link made; the person's folders and link, and the replaced one, stay.
ss_run 0 "$SKILLSYNC" unlink --json
grep -q "warning: left '$work/.claude/skills/pdf-forms'" "$work/stderr" || fail "unlink: $(cat "$work/stderr")"
python3 - "$work/stdout" "$work" <<'PY' || fail "unlink --json: $(cat "$work/stdout")"
import json, sys
doc, w = json.load(open(sys.argv[1])), sys.argv[2]
assert doc["left"] == [{"path": w + "/.claude/skills/pdf-forms",
                        "reason": "it is no longer what skillsync made there"}], doc
assert w + "/.agents/skills/delta" in doc["removed"] and len(doc["removed"]) == len(set(doc["removed"])), doc
PY
[ "$(cat "$work/.claude/skills/alpha/SKILL.md")" = mine ] || fail "unlink touched the person's folder"
[ "$(readlink "$HOME/.claude/skills/beta")" = /nowhere ] || fail "unlink touched the person's link"
[ -d "$work/.claude/skills/pdf-forms" ] || fail "unlink removed a folder it had not made"
left=$(find "$work/.claude" "$work/.agents" "$HOME" \( -lname "$space/*" -o -name .skillsync-copy \) -print)
[ -z "$left" ] || fail "unlink left: $left"
ss_run 0 "$SKILLSYNC" status
! grep -q "Agent links" "$work/stdout" || fail "status after unlink: $(cat "$work/stdout")"
auth_put epsilon "first"
ss_run 0 "$SKILLSYNC" pull
! grep -q "not linked" "$work/stderr" || fail "pull after unlink still links: $(cat "$work/stderr")"

# Agent folders that are symbolic links (a project repository can ship `.claude` as one): link
# walks the folder from the project (or the home) without following any, refuses in one line
# with exit 1, makes nothing in any folder, and writes nothing where the link points; with
# --copy, --global, and a link that points nowhere yet. pull and unlink leave a remembered
# folder alone once a link has replaced a part of it.
ss_run 0 "$SKILLSYNC" unlink
out=$work/elsewhere
refused() { # refused <path> <link args>...: link exits 1 naming <path> as a symbolic link
	local path=$1
	shift
	ss_run 1 "$SKILLSYNC" link "$@"
	[ "$(cat "$work/stderr")" = "skillsync: refusing to link: '$path' is a symbolic link" ] ||
		fail "link $*: $(cat "$work/stderr")"
	[ -z "$(find "$out" -mindepth 2)" ] || fail "link $* wrote where a link points: $(find "$out")"
	[ -z "$(find "$work" -path "$out" -prune -o -lname "$space/*" -print)" ] ||
		fail "link $* linked: $(find "$work" -lname "$space/*")"
}
mkdir -p "$out/a" "$out/b" "$out/c" "$work/p1" "$work/p2/.claude" "$work/home2" "$work/p3"
ln -s "$out/a" "$work/p1/.claude"
for copy in "" --copy; do
	refused "$work/p1/.claude" --project "$work/p1" $copy
	refused "$work/p1/.claude" --project "$work/p1" --agent claude $copy
done
# Refused before any folder is made: .agents/skills comes before .goose/skills.
mkdir -p "$work/p4" && ln -s "$out/a" "$work/p4/.goose"
refused "$work/p4/.goose" --project "$work/p4" --agent agents --agent goose
[ ! -e "$work/p4/.agents" ] || fail "link made the project's .agents/skills before refusing"
ln -s "$out/b" "$work/p2/.claude/skills"
refused "$work/p2/.claude/skills" --project "$work/p2" --agent claude
refused "$work/p2/.claude/skills" --project "$work/p2" --agent claude --copy
ln -s "$out/c" "$work/home2/.claude"
HOME=$work/home2 refused "$work/home2/.claude" --global --agent claude
HOME=$work/home2 refused "$work/home2/.claude" --global --agent claude --copy
ln -s "$out/none" "$work/p3/.agents"
refused "$work/p3/.agents" --project "$work/p3" --agent agents
[ ! -e "$out/none" ] || fail "link made the folder a dangling link points to"
rm "$work/p3/.agents"

# Linked while a real folder; then the project's .claude becomes a link to it elsewhere.
ss_run 0 "$SKILLSYNC" link --project "$work/p3" --agent claude --copy
[ -f "$work/p3/.claude/skills/alpha/.skillsync-copy" ] || fail "no copy in p3"
mv "$work/p3/.claude" "$out/moved"
ln -s "$out/moved" "$work/p3/.claude"
auth_put alpha "third"
ss_run 0 "$SKILLSYNC" pull
grep -qx "warning: not keeping '$work/p3/.claude/skills' current: '$work/p3/.claude' is a symbolic link" \
	"$work/stderr" || fail "pull: $(cat "$work/stderr")"
! grep -q third "$out/moved/skills/alpha/SKILL.md" || fail "pull refreshed a copy through a link"
grep -q third "$space/alpha/SKILL.md" || fail "the pull did not bring alpha"
ss_run 0 "$SKILLSYNC" unlink
grep -q "warning: left '$work/p3/.claude/skills/alpha': '$work/p3/.claude' is a symbolic link" \
	"$work/stderr" || fail "unlink: $(cat "$work/stderr")"
[ -f "$out/moved/skills/alpha/.skillsync-copy" ] || fail "unlink removed a copy through a link"
echo ok
