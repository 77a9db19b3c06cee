#!/usr/bin/env bash
# needs: pds
# A clone of a realistic space gives the same tree, byte for byte, as when this test was
# written: 3 members x 300 records shaped like real skills (ss-fill --real, 32 in 35 with a
# frontmatter object as real skills have, drawn from each record's name; the third member
# writes the second's names again, so precedence decides, as in bench/clone.sh), and the hash of every file's path, executable bit and content. Speed
# work on the fetch (decoding, packing, checkout) must not change a byte of what lands, and
# both ways of reading a member in full (its whole repo by getRepo, or the listRecords pages
# with the signed tree) land the same tree. When
# a change of the output is meant (the rendering of SKILL.md, say), put the new values below
# and say why in the commit.
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SKILLSYNC:?}" "${SS_SOURCE_DIR:?}"
fill=$(dirname "$SKILLSYNC")/ss-fill
expected_files=1544
expected_hash=4ef673b584966e3e92273e456fed0414bb6384c956b2c25c28985c980748d8da-f9935c918f96e93676d6aa3db8a4140152dce6beac593d1680ca56e4a15e47b6
expected_tree=83794fc0c8b04f2dae45bb2bee70d43d4d326c68

. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"
ss_sandbox

ss_accounts . "" a b c
for who in a b c; do
	prefix=m$who
	[ "$who" != c ] || prefix=mb
	SS_FILL_TOKEN=$(ss_json "$who.json" accessJwt) "$fill" --pds "$pds" \
		--did "$(ss_json "$who.json" did)" --generate 300 --prefix "$prefix" --real
done
# check <dir>: the clone in <dir> holds exactly the expected tree.
check() (
	cd "$1"
	[ -z "$(git status --porcelain)" ] || fail "the checkout differs from its commit: $(git status --porcelain | head)"
	files=$(find . -path ./.git -prune -o -type f -print | wc -l)
	# path, x or -, content hash; sorted by path (C locale)
	hash=$(find . -path ./.git -prune -o -type f -printf '%P\n' | LC_ALL=C sort | while IFS= read -r f; do
		[ -x "$f" ] && echo "x $f" || echo "- $f"
	done | sha256sum | cut -c1-64)
	content=$(find . -path ./.git -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-64)
	tree=$(git rev-parse 'HEAD^{tree}')
	echo "$1: files=$files modes=$hash content=$content tree=$tree"
	[ "$files" = "$expected_files" ] || fail "$1: $files files in the tree, expected $expected_files"
	[ "$hash-$content" = "$expected_hash" ] || fail "$1: the tree's files differ: $hash-$content, expected $expected_hash"
	[ "$tree" = "$expected_tree" ] || fail "$1: the tree id differs: $tree, expected $expected_tree"
)
# clone <dir>: a clone of the space into <dir>; its request count in $requests.
clone() {
	SKILLSYNC_STATS=1 ss_run 0 "$SKILLSYNC" clone "$(ss_json a.json handle)" "$1" \
		--member "$(ss_json b.json handle)" --member "$(ss_json c.json handle)"
	grep -q "Cloned 600 skills from 3 members" stdout || fail "clone said: $(cat stdout)"
	requests=$(sed -n 's/^stats: requests=\([0-9]*\) .*/\1/p' stderr stdout | head -1)
}

# The members' repos hold only skills: each is read whole, one getRepo (docs/CLONE.md).
clone space
echo "whole repos: $requests requests"
((requests <= 20)) || fail "$requests requests: the repos were not read whole"
check space
# With a record of another collection in each repo, the skills are listed (listRecords pages
# and the signed tree): the same tree, byte for byte.
for who in a b c; do
	ss_curl_auth "$(ss_json "$who.json" accessJwt)" -fsS -X POST -H 'Content-Type: application/json' \
		--data-binary "{\"repo\":\"$(ss_json "$who.json" did)\",\"collection\":\"garden.engram.test\",\"record\":{\"text\":\"not a skill\"}}" \
		"$pds/xrpc/com.atproto.repo.createRecord" >/dev/null || fail "createRecord of another collection"
done
clone listed
echo "listings: $requests requests"
((requests > 30)) || fail "$requests requests: the repos were not listed"
check listed
echo "clone_tree: ok"
