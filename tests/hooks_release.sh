#!/bin/sh
# Usage: hooks_release.sh <source dir> <on|off> <release objects> <build objects>: the test
# hooks of docs/RELIABILITY.md against the build option SS_TEST_HOOKS (tests/CMakeLists.txt).
# <release objects> (;-separated): the modules that read a hook that turns a check off,
# compiled as a Release build compiles them; none may hold the hook's name. <build objects>:
# this build's sssync objects; its object of the same module holds the name exactly when this
# build has SS_TEST_HOOKS (<on|off>), so the check above looks where the hook is. And every
# SKILLSYNC_TEST_* name in core/, sync/ and cmd/ is one of the known hooks, in its module: a new
# hook must be decided on here (guarded by SS_TEST_HOOKS if it weakens a check).
set -eu
src=$1 hooks=$2 release=$3 build=$4
weak=SKILLSYNC_TEST_NO_VERIFY
fails=0
no() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

# The known hooks and where they are read. SKILLSYNC_TEST_CRASH and SKILLSYNC_TEST_DELAY
# (core/util/crash.h) end or pause a run, which a kill or SIGSTOP can do to any build: they weaken no
# check and stay in every build.
found=$(cd "$src" && grep -rnoE 'SKILLSYNC_TEST_[A-Z_]+' core sync cmd --include='*.c' --include='*.h')
for hit in $found; do
	file=${hit%%:*} name=${hit##*:}
	case $name:$file in
	SKILLSYNC_TEST_CRASH:core/util/crash.h | SKILLSYNC_TEST_DELAY:core/util/crash.h) ;;
	"$weak":sync/public/space_public.c) ;;
	*) no "$file names the test hook $name, which this check does not know: decide whether it weakens a check (then guard it with SS_TEST_HOOKS) and add it here" ;;
	esac
done

IFS=';'
# shellcheck disable=SC2086 # CMake hands the objects over as one ;-separated list
set -- $release
[ $# -ge 1 ] || no "no release objects"
for obj; do
	if grep -aq "$weak" "$obj"; then
		no "$obj, compiled for Release, holds $weak"
	fi
done
seen=0
# shellcheck disable=SC2086
set -- $build
for obj; do
	case $obj in
	*/space_public.c.o) ;;
	*) continue ;;
	esac
	seen=1
	if grep -aq "$weak" "$obj"; then has=on; else has=off; fi
	[ "$has" = "$hooks" ] || no "$obj: SS_TEST_HOOKS is $hooks, but $weak is $has in it"
done
[ "$seen" = 1 ] || no "this build has no object of sync/public/space_public.c"
[ "$fails" = 0 ] || exit 1
echo "hooks_release: no $weak in a Release object; this build (SS_TEST_HOOKS $hooks) agrees"
