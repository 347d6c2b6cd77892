#!/bin/sh
# t-signal.sh - SIGTERM and SIGINT during the set-up of a large model
# (issue 17: a 1e4-link chain sent SIGTERM during set-up was still running
# 27 minutes later).  `mbsim run` of the 1e5-pendulum deck spends seconds
# reading and building it before the first step; a signal sent into that
# must end the run with exit 1 within BOUND seconds, say where it stopped
# ("interrupted while ..."), and leave no output file, or one that opens
# and says "interrupted".
# Usage: MBSIM=build/mbsim sh tests/t-signal.sh
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

# The bound: the loops that run long at N = 1e5 poll the flag once per
# element, and the longest stretch between two polls is compiling the
# solver's pattern, 0.6 s at N = 1e5 on the shared 2-core machine
# (bench/README.md); 5 s leaves room for a loaded machine and ASan.
BOUND=5
deck=$decks/pendulum_array.yaml
H5DUMP=$(command -v h5dump)
# h5attr FILE NAME: a scalar root attribute (strings without quotes)
h5attr() { "$H5DUMP" -a "/$2" "$1" | awk '/\(0\):/ { sub(/.*\(0\): */, ""); gsub(/"/, ""); print; exit }'; }

# sig_case SIG DELAY N END: signal SIG after DELAY seconds to a run of N
# pendulums to time.end = END; then wait at most BOUND seconds
sig_case() {
	sig=$1 delay=$2 n=$3 name="$1 after $2 s, N = $3, time.end = $4"
	h5=$tmp/sig.h5
	rm -f "$h5"
	"$MBSIM" run "$deck" --set parameters.N="$n" --set time.end="$4" -o "$h5" \
		>"$tmp/out" 2>"$tmp/err" &
	pid=$!
	sleep "$delay"
	if ! kill -0 "$pid" 2>/dev/null; then
		wait "$pid"
		bad "$name" "the run ended before the signal (status $?); the deck is too small to test this"
		return
	fi
	kill -s "$sig" "$pid"
	waited=0
	while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt $((BOUND * 10)) ]; do
		sleep 0.1
		waited=$((waited + 1))
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -s KILL "$pid"
		wait "$pid"
		bad "$name" "still running $BOUND s after the signal"
		return
	fi
	wait "$pid"
	st=$?
	if [ "$st" -ne 1 ]; then
		bad "$name" "exit status $st, want 1" "$(cat "$tmp/err")"
		return
	fi
	if ! grep -q "interrupted" "$tmp/err"; then
		bad "$name" "no message saying where it stopped" "$(cat "$tmp/err")"
		return
	fi
	file="no output file"
	[ -e "$h5" ] && file="output file not read (no h5dump)"
	if [ -e "$h5" ] && [ -n "$H5DUMP" ]; then
		s=$(h5attr "$h5" status)
		if [ "$s" != interrupted ]; then
			bad "$name" "the output file has status '$s', want 'interrupted'"
			return
		fi
		file="file status interrupted"
	fi
	ok "$name: exit 1 within $BOUND s, $file: $(grep -m1 interrupted "$tmp/err")"
}

# N = 1e5: early (reading the file, building the bodies) and later
# (joints, forces), by both signals; no file exists yet
sig_case TERM 0.3 100000 10
sig_case INT 0.3 100000 10
sig_case TERM 1.2 100000 10
sig_case INT 1.2 100000 10
# N = 300: set-up is short, the signal lands while the file is open (in
# the steps, some 5 s of them): it must be closed saying "interrupted".
# (At N = 2000 the HDF5 writer of 2026-11-25 takes minutes to close an
# interrupted file - issue 17, the layout branch - so N stays small here.)
sig_case TERM 0.5 300 5
finish
