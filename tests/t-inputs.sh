#!/bin/sh
# t-inputs.sh - hostile inputs to the deck readers, the mesh and curve
# files, signals inside Newton iterations and the output's first
# milliseconds: each case names the input and what must hold.
# Usage: MBSIM=build/mbsim sh tests/t-inputs.sh
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

# A curve file with a comment line longer than any fixed line buffer
# (1026 bytes, its tail "5,5") reads as the same three knots as
# tests/forces/law.csv: the run equals that of curve_csv.yaml bit for bit
expect_rc 0 "curve CSV with a 1026-byte comment line: check" \
	"$MBSIM" check "$top/tests/forces/curve_csv_long.yaml"
"$MBSIM" run "$top/tests/forces/curve_csv.yaml" -o "$tmp/short.h5" --quiet >/dev/null 2>&1
"$MBSIM" run "$top/tests/forces/curve_csv_long.yaml" -o "$tmp/long.h5" --quiet >/dev/null 2>&1
d=$(pos_diff "$tmp/short.h5" "$tmp/long.h5")
case $d in
"0 "*) ok "curve CSV with a 1026-byte comment line: the same run as curve_csv.yaml ($d)" ;;
*) bad "curve CSV with a 1026-byte comment line: differs from curve_csv.yaml: '$d'" ;;
esac

# A NUL inside a --set value (a YAML "\0" escape) is refused, as in a
# deck (tests/bad/parameter_nul.yaml): "1\0+1" is not 1
expect_rc 2 "--set parameters.len=1 NUL +1 (a YAML escape)" "$MBSIM" check "$decks/pendulum.yaml" \
	--set 'parameters.len="1\0+1"'
if grep -q "NUL" "$tmp/err"; then
	ok "--set with a NUL: the message names it"
else
	bad "--set with a NUL: no message naming the NUL"
fi

finish
