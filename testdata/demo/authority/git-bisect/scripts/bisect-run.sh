#!/bin/sh
# Exit codes for git bisect run: 0 good, 1 bad, 125 cannot test this commit.
make -s >/dev/null 2>&1 || exit 125
make -s test >/dev/null 2>&1 && exit 0
exit 1
