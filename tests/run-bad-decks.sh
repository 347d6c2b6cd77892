#!/bin/sh
# run-bad-decks.sh - every tests/bad/NAME.yaml must make `mbsim check` exit
# with status 2 and print exactly tests/bad/NAME.expected on stderr.
# Usage: MBSIM=build/mbsim sh tests/run-bad-decks.sh
MBSIM=${MBSIM:-build/mbsim}
dir=$(dirname "$0")/bad
tmp=${TMPDIR:-/tmp}/mbsim-bad.$$
pass=0
fail=0
trap 'rm -f "$tmp"' EXIT INT TERM
for deck in "$dir"/*.yaml; do
	name=${deck%.yaml}
	"$MBSIM" check "$deck" >/dev/null 2>"$tmp"
	status=$?
	if [ "$status" -eq 2 ] && cmp -s "$tmp" "$name.expected"; then
		echo "ok   $deck"
		pass=$((pass + 1))
	else
		echo "FAIL $deck (exit $status)"
		diff "$name.expected" "$tmp" | sed 's/^/     /'
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
