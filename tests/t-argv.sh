#!/bin/sh
# t-argv.sh - hostile command lines: every option of every command with
# empty, missing, huge, negative, non-finite, malformed and 5000-character
# values.  Each must end with one of the documented exit statuses (0, 1,
# 2, 64; never a signal or a sanitizer's own status) and print no
# sanitizer report: under `make asan` this is where a command-line crash
# shows.  Usage: MBSIM=build/mbsim sh tests/t-argv.sh
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

# a sanitizer report exits with 99, distinct from mbsim's statuses
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=99"
UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=99"
export ASAN_OPTIONS UBSAN_OPTIONS

long=$(printf '%5000s' '' | tr ' ' x)
deck=$decks/pendulum.yaml
# run from an empty directory: `-o VALUE` writes files named by the values
mkdir "$tmp/cwd" && cd "$tmp/cwd" || exit 1
short="--set time.end=0.002"
h5=$tmp/p.h5
"$MBSIM" run "$deck" $short -o "$h5" --quiet >/dev/null 2>&1 || echo "note: no reference file"

n=0
try() {
	n=$((n + 1))
	timeout 60 "$MBSIM" "$@" >/dev/null 2>"$tmp/err"
	st=$?
	case $st in
	0 | 1 | 2 | 64)
		if grep -q 'Sanitizer\|runtime error:' "$tmp/err"; then
			bad "mbsim $(echo "$*" | cut -c1-120): sanitizer report" "stderr:"
			{ head -3 "$tmp/err"; grep -m3 "SUMMARY\|#[0-9] \| in /work" "$tmp/err"; } | sed 's/^/     /'
		fi
		;;
	*)
		bad "mbsim $(echo "$*" | cut -c1-120): exit $st" "stderr:"
		{ head -3 "$tmp/err"; grep -m3 "SUMMARY\|#[0-9] \| in /work" "$tmp/err"; } | sed 's/^/     /'
		;;
	esac
}

# shellcheck disable=SC2086
for v in '' - , ,1 1:0 a:b:c 0 -1 1e308 1e-320 nan -inf 99999999999999999999 2147483648 \
	'%s%n%s' ' ' "$long" / =1 'time.end=' 'bodies.0.mass=nan' 'a.b.c.d=1' 'bodies.99.mass=1' \
	"$long=1" "bodies.$long=1" 'time.end={a' "/x$long" 'bodies/b/position:9' \
	'bodies/b/position:-1' 'x=1:nan'; do
	for o in --set -o --steps --quantity --reference --expect-order --rtol --atol --tol \
		--method --rho --alpha --ratio-range --points; do
		case $o in
		--set) try check "$deck" --set "$v" ;;
		-o) try run "$deck" $short --quiet -o "$v" ;;
		--steps | --quantity | --reference | --expect-order)
			try converge "$deck" $short --steps 1e-3,5e-4 --quiet "$o" "$v"
			[ "$o" = --steps ] && try converge "$deck" $short "$o=$v" ;;
		--rtol | --atol | --tol) try compare "$h5" "$h5" "$o" "$v"; try compare "$h5" "$h5" "$o=$v" ;;
		*) try spectral --method lms2 --points 3 "$o" "$v" ;;
		esac
	done
	try compare "$v" "$h5"; try compare "$h5" "$v"
	try compare "$h5" "$h5" --quantity "$v"
	try check "$v"; try run "$v"; try list "$v"; try help "$v"; try "$v"
done
# options at the end, without their value
for c in run check converge compare spectral; do
	for o in --set -o --steps --quantity --reference --expect-order --rtol --atol --tol \
		--method --rho --alpha --ratio-range --points --json --csv --quiet; do
		try "$c" "$o"; try "$c" "$deck" "$o"; try "$c" "$h5" "$h5" "$o"
	done
done
[ "$fail" -eq 0 ] && ok "$n hostile command lines"
# a component index is checked against the columns as given: 2^31 wrapped
# to a valid column before, ' 1' passed as 1
for c in 2147483648 4294967296 ' 1' +1; do
	expect_rc 64 "converge --quantity bodies/bar/position:'$c' is a usage error" \
		"$MBSIM" converge "$deck" $short --steps 2e-3,1e-3 --quiet \
		--quantity "bodies/bar/position:$c"
done
# an endless file was read until memory ran out
expect_rc 2 "check /dev/zero stops at the deck size limit" "$MBSIM" check /dev/zero
# an infinite tolerance made every comparison with 0 a NaN and a FAIL
for t in "--rtol 1e999" "--atol inf" "--tol time=inf:0"; do
	# shellcheck disable=SC2086
	expect_rc 64 "compare $t is a usage error" "$MBSIM" compare "$h5" "$h5" $t
done
finish
