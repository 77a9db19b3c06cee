# tests/cmd/lib/blobs.sh: what the blob scripts (blobs.sh, space_blobs.sh) share. Source it
# after common.sh and tests/fault/lib.sh (the proxy started); $work set.

# ss_kit <dir> <seed>: a skill named after <dir>'s last component with two binaries
# (bin/tool executable), 40 text files and a 242,000-byte XSD: 32 text files fit in the
# record, 11 files travel as blobs. <seed> changes the binaries' bytes.
ss_kit() {
	python3 - "$1" "$2" <<'PY'
import os, random, sys
d, seed = sys.argv[1], sys.argv[2]
rnd = random.Random(seed)
for sub in ("bin", "fonts", "refs"):
    os.makedirs(f"{d}/{sub}", exist_ok=True)
open(f"{d}/SKILL.md", "w").write("---\nname: %s\ndescription: A kit with binaries.\n---\n# Kit\n" % os.path.basename(d))
open(f"{d}/fonts/a.ttf", "wb").write(b"\0\1\0\0" + bytes(rnd.randrange(256) for _ in range(30000)))
open(f"{d}/bin/tool", "wb").write(b"\x7fELF\0" + bytes(rnd.randrange(256) for _ in range(5000)))
os.chmod(f"{d}/bin/tool", 0o755)
for i in range(40):
    open(f"{d}/refs/f{i:02d}.md", "w").write(f"reference {i}\n")
open(f"{d}/schema.xsd", "w").write("<x/>\n" * 48400)
PY
}

# ss_same <a> <b>: byte-identical trees with the same executable bits.
ss_same() {
	diff -r "$1" "$2" >/dev/null || fail "$2 differs from $1: $(diff -rq "$1" "$2" | head -3)"
	(cd "$1" && find . -type f -perm -u+x | sort) >"$work/x1"
	(cd "$2" && find . -type f -perm -u+x | sort) >"$work/x2"
	cmp -s "$work/x1" "$work/x2" || fail "executable bits differ: $(cat "$work/x1") / $(cat "$work/x2")"
}

# ss_pull_accept <command>...: a pull (<command> pull); a change of kit the review gate holds
# (a changed binary is code until proven otherwise: docs/SECURITY.md) is reviewed and accepted,
# and $held says whether one was.
ss_pull_accept() {
	held=0
	ss_run 0 "$@" pull
	if grep -q "waits for review" "$work/stdout"; then
		held=1
		grep -q "kit (.*changes scripts)" "$work/stdout" || fail "held why: $(cat "$work/stdout")"
		ss_run 0 "$@" review kit
		ss_run 0 "$@" accept kit
	fi
}

# ss_requests <path>: how many requests to <path> the proxy saw since its count was reset.
ss_requests() {
	curl -sf "$proxy/_fault/count" | python3 -c 'import json,sys; print(sum(1 for l in json.load(sys.stdin)["log"] if l.split(" ",1)[1].split("?")[0] == sys.argv[1]))' "$1"
}

# ss_refused <file> <line> <source> <command>...: with the proxy tampering with the blobs,
# a pull (<command> pull) exits 4 with one line naming kit/<file> and <line>, and keeps the
# last good kit; without the tampering the next pull takes the new version (accepted when the
# review gate holds it), the same as <source>/kit.
ss_refused() {
	local file=$1 want=$2 src=$3 rc=0
	shift 3
	cp -r kit "$work/good"
	"$@" pull >"$work/out" 2>&1 || rc=$?
	[ "$rc" = 4 ] || fail "$want: pull exited $rc: $(cat "$work/out")"
	grep -q "kit/$file: $want" "$work/out" || fail "$want: no line naming kit/$file: $(cat "$work/out")"
	[ "$(grep -c "kit/$file" "$work/out")" = 1 ] || fail "$want: more than one line: $(cat "$work/out")"
	grep -q "last good version is kept" "$work/out" || fail "$want: $(cat "$work/out")"
	ss_same "$work/good" kit
	rm -rf "$work/good"
	curl -sf "$proxy/_fault/tamper" >/dev/null
	ss_pull_accept "$@"
	ss_same "$src/kit" kit
}
