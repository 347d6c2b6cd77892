#!/bin/sh
# t-membuf.sh - the output buffer that `run --json` reports
# (output_buffer_bytes: the most bytes of samples the writer kept in memory
# at once, issue 17's "plus the output buffer").
# Usage: MBSIM=build/mbsim sh tests/t-membuf.sh (from the source root)

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

# One sample of decks/pendulum.yaml (one body, one revolute joint of 5
# rows; man/mbsim-output.5) is 60 doubles, 480 bytes: /time 1, the six
# body series 3+3+3+4+3+3 = 19, the joint's multipliers 5, reaction force
# 3, torque 3, coordinate 1, the three residual vectors 5 each, the three
# residual norms, seven energies (five, and the motors' and the drivers'
# work), step size, iterations and converged: 1 + 19 + 12 + 15 + 3 + 7 + 3.
# With a flush interval longer than the run all 101 samples are kept until
# the close; with flush_interval 0 each is written at once and one is kept.
# Beside them the writer keeps one row of /checkpoint (its time and the
# run's state, W values: the width of /checkpoint/state in the file,
# mbsim-output(5)), 8 (1 + W) bytes.
buffer() { "$PY" -c 'import json, sys; print(json.load(sys.stdin)["output_buffer_bytes"])' <"$tmp/out"; }
ckrow() { "$PY" -c 'import h5py, sys; print(8 * (1 + h5py.File(sys.argv[1], "r")["/checkpoint/state"].shape[1]))' "$1"; }

expect_rc 0 "pendulum, output.flush_interval 1000: runs" \
	"$MBSIM" run "$decks/pendulum.yaml" -o "$tmp/a.h5" --json --set output.flush_interval=1000
c=$(ckrow "$tmp/a.h5")
name="all 101 samples kept: 101 x 480 = 48480 bytes + a checkpoint row of $c"
b=$(buffer)
if [ "$b" = $((48480 + c)) ]; then ok "$name"; else bad "$name" "got $b"; fi

expect_rc 0 "pendulum, output.flush_interval 0: runs" \
	"$MBSIM" run "$decks/pendulum.yaml" -o "$tmp/b.h5" --json --set output.flush_interval=0
c=$(ckrow "$tmp/b.h5")
name="one sample kept: 480 bytes + a checkpoint row of $c"
b=$(buffer)
if [ "$b" = $((480 + c)) ]; then ok "$name"; else bad "$name" "got $b"; fi

finish
