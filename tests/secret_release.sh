#!/bin/sh
# Usage: secret_release.sh <object>[;<object>...]: the objects of core/secret.c and of the modules that
# hold secrets, compiled with -O2 (tests/CMakeLists.txt). Fails unless ss_secret_wipe still
# calls explicit_bzero and every other object wipes through ss_secret_free, not a memset of its
# own.
set -eu
IFS=';'
# shellcheck disable=SC2086 # CMake hands the objects over as one ;-separated list
set -- $*
for obj; do
	case $obj in
	*secret.c.o)
		objdump -dr --disassemble=ss_secret_wipe "$obj" | grep -q 'explicit_bzero' || {
			echo "FAIL: ss_secret_wipe in $obj does not call explicit_bzero at -O2" >&2
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
