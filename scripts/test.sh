#!/usr/bin/env bash
# Sets up (scripts/setup.sh), builds and runs every test: the normal build, then the whole
# suite again under AddressSanitizer + UndefinedBehaviorSanitizer, then the fuzz targets (clang,
# ASan + UBSan: each replays its corpus and fuzzes for $SS_FUZZ_SECONDS, default 10 s), then
# the clang-format check. The builds honour the test hooks (SS_TEST_HOOKS, docs/RELIABILITY.md);
# the test hooks_release checks that a Release-compiled object has none.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh

jobs=$(nproc 2>/dev/null || echo 2)
run_suite() {
	local dir=$1
	shift
	cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DSS_TEST_HOOKS=ON "$@" >/dev/null
	cmake --build "$dir" -j "$jobs"
	ctest --test-dir "$dir" --output-on-failure --no-tests=error -j "$jobs"
}

echo "== build and test"
run_suite build
echo "== build and test with ASan + UBSan"
ASAN_OPTIONS=detect_leaks=1 run_suite build-asan -DSS_SANITIZE=ON
echo "== fuzz targets (clang, ASan + UBSan)"
CC=clang run_suite build-fuzz -DSS_FUZZ=ON -DSS_TESTS=OFF
echo "== clang-format"
scripts/check-format.sh
