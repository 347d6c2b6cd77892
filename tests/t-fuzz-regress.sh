#!/bin/sh
# t-fuzz-regress.sh - every committed fuzzer reproducer, replayed through
# the normal binary (tests/fuzz/README.md):
#   tests/fuzz/regress/deck/*   a deck: `mbsim check` must exit 2 with a
#                               FILE:LINE:COL: error: message (a line
#                               "#--set KEY=VALUE" is passed as --set);
#   tests/fuzz/regress/expr/*   an expression: put in a deck as the value
#                               of a parameter, the same;
#   tests/fuzz/regress/h5/*     a file given to compare: `mbsim compare F F`
#                               must exit 1 or 2 with an "mbsim: error:"
#                               or a FAIL line; a name ending in -ok is a
#                               file the fuzzer flagged for libhdf5's own
#                               behaviour (an allocation beyond its limit)
#                               that mbsim reads whole: exit 0, 1 or 2,
#                               never a signal or sanitizer report.
# Under `make asan` a sanitizer report fails it (exit 99).
# Usage: MBSIM=build/mbsim sh tests/t-fuzz-regress.sh
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=99"
UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=99"
export ASAN_OPTIONS UBSAN_OPTIONS
dir=$top/tests/fuzz/regress

replay() {	# NAME DECK: its lines "#--set KEY=VALUE" become --set options
	name=$1 deck=$2
	sets=$(sed -n 's/^#--set //p' "$deck")
	set --
	old_ifs=$IFS
	IFS='
'
	for a in $sets; do
		set -- "$@" --set "$a"
	done
	IFS=$old_ifs
	"$MBSIM" check "$@" "$deck" >/dev/null 2>"$tmp/err"
	st=$?
	if [ "$st" -eq 2 ] && grep -q "^\($deck\|--set\):[0-9]*:[0-9]*: error: " "$tmp/err" &&
		! grep -q 'ERROR: [A-Za-z]*Sanitizer\|runtime error:' "$tmp/err"; then
		ok "$name"
	else
		bad "$name (exit $st, want 2 and a FILE:LINE:COL: error:)" "stderr:"
		head -5 "$tmp/err" | sed 's/^/     /'
	fi
}

for f in "$dir"/deck/*; do
	[ -f "$f" ] && replay "regress/deck/$(basename "$f")" "$f"
done
for f in "$dir"/expr/*; do
	[ -f "$f" ] || continue
	d=$tmp/$(basename "$f").yaml
	{
		printf 'time: {end: 1}\nparameters:\n  p: |-\n    '
		cat "$f"
		printf '\n'
	} >"$d"
	replay "regress/expr/$(basename "$f")" "$d"
done
# libhdf5's own faults on damaged files are outside mbsim: the sanitizers
# are told what run.sh tells them for the h5 target (tests/fuzz/*.supp)
h5asan="$ASAN_OPTIONS:suppressions=$top/tests/fuzz/h5.supp:fast_unwind_on_malloc=0"
h5asan="$h5asan:allocator_may_return_null=1:max_allocation_size_mb=2048"
h5lsan="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$top/tests/fuzz/h5-leak.supp"
for f in "$dir"/h5/*; do
	[ -f "$f" ] || continue
	ASAN_OPTIONS=$h5asan LSAN_OPTIONS=$h5lsan "$MBSIM" compare "$f" "$f" >"$tmp/out" 2>"$tmp/err"
	st=$?
	case $f in
	*-ok) okst="0 1 2" need_msg=0 ;;
	*) okst="1 2" need_msg=1 ;;
	esac
	if echo " $okst " | grep -q " $st " &&
		{ [ "$need_msg" = 0 ] || grep -q '^mbsim: error: \|^FAIL' "$tmp/err" "$tmp/out"; } &&
		! grep -q 'ERROR: [A-Za-z]*Sanitizer\|runtime error:' "$tmp/err"; then
		ok "regress/h5/$(basename "$f")"
	else
		bad "regress/h5/$(basename "$f") (exit $st, want $okst and a message)" "stderr:"
		head -5 "$tmp/err" | sed 's/^/     /'
	fi
done
finish
