#!/bin/sh
# run-bad-decks.sh - every tests/bad/NAME.yaml must make `mbsim check` exit
# with status 2 and print exactly tests/bad/NAME.expected on stderr.
# Usage: MBSIM=build/mbsim sh tests/run-bad-decks.sh   (run from the source
# root: the expected messages name the decks as tests/bad/NAME.yaml)

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

dir=$(dirname "$0")/bad
for deck in "$dir"/*.yaml; do
	name=${deck%.yaml}
	"$MBSIM" check "$deck" >/dev/null 2>"$tmp/err"
	status=$?
	if [ "$status" -eq 2 ] && cmp -s "$tmp/err" "$name.expected"; then
		ok "$deck"
	else
		bad "$deck (exit $status)" "diff expected actual:"
		diff "$name.expected" "$tmp/err" | sed 's/^/     /'
	fi
done
finish
