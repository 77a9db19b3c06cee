#!/usr/bin/env bash
# The main job until the clone command lands: installs what is missing (no PDS needed), builds,
# and validates the demo skills of the three demo accounts in testdata/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh --no-pds
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build -j "$jobs" >/dev/null
echo "== skillsync validate testdata/demo/authority testdata/demo/member1 testdata/demo/member2"
build/skillsync validate testdata/demo/authority testdata/demo/member1 testdata/demo/member2
