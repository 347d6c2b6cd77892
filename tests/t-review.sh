#!/bin/sh
# t-review.sh - regressions found reviewing the merge of user, silent and
# hispec (one section per finding, each failed before its fix).
# Usage: MBSIM=build/mbsim sh tests/t-review.sh (from the source root)

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
udecks=$top/tests/user

# 1. run -o onto an existing FIFO: the output check opened it for reading
# to look for an HDF5 attribute and blocked for ever (no writer comes).
# mbsim-run(1): anything but an earlier output or a character device is
# refused with status 64.  timeout only guards the suite against the hang.
mkfifo "$tmp/fifo"
expect_rc 64 "run -o FIFO: refused, not blocked" \
	timeout 60 "$MBSIM" run "$udecks/wheels.yaml" -o "$tmp/fifo" --quiet
grep -q "is not a regular file" "$tmp/err" && ok "run -o FIFO: the message says why" ||
	bad "run -o FIFO: the message says why"

finish
