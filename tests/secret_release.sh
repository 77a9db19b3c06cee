#!/bin/sh
# Usage: secret_release.sh <object>[;<object>...]: the objects of core/util/platform.c, core/util/secret.c
# and of the modules that hold secrets, compiled with -O2 (tests/CMakeLists.txt). Fails unless
# ss_platform_wipe still calls explicit_bzero, ss_secret_wipe wipes through it, and every other
# object wipes through ss_secret_free, not a memset of its own.
set -eu
IFS=';'
# shellcheck disable=SC2086 # CMake hands the objects over as one ;-separated list
set -- $*
for obj; do
	case $obj in
	*platform.c.o)
		objdump -dr --disassemble=ss_platform_wipe "$obj" | grep -q 'explicit_bzero' || {
			echo "FAIL: ss_platform_wipe in $obj does not call explicit_bzero at -O2" >&2
			exit 1
		}
		;;
	*secret.c.o)
		objdump -dr --disassemble=ss_secret_wipe "$obj" | grep -q 'ss_platform_wipe' || {
			echo "FAIL: ss_secret_wipe in $obj does not wipe through ss_platform_wipe at -O2" >&2
			exit 1
		}
		;;
	*)
		nm "$obj" | grep -q ' U ss_secret_free$' || {
			echo "FAIL: $obj does not wipe its secrets through ss_secret_free" >&2
			exit 1
		}
		;;
	esac
done
echo "secret_release: explicit_bzero kept at -O2"
