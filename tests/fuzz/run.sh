#!/bin/sh
# run.sh TARGET SECONDS - one libFuzzer campaign (called by `make fuzz`).
# The corpus grows in build-fuzz/corpus/TARGET (not in git), starting
# from tests/fuzz/seed/TARGET and, for the deck target, the shipped and
# malformed decks.  The deck dictionary is generated from the key table
# through `$MBSIM list keys|joints|forces|integrators`, so it cannot
# drift from src/deck/keys.c.  A crash, leak, sanitizer report or hang
# (-timeout) leaves build-fuzz/crash-TARGET-* and exits non-zero.
set -eu
t=$1
secs=$2
if [ "$t" = sweep ]; then
	# tools/sweep is Python: its own random fuzzer, in process (fuzz_sweep.py)
	exec nice /usr/bin/python3 tests/fuzz/fuzz_sweep.py "$secs"
fi
: "${MBSIM:=build-fuzz/mbsim}"
out=build-fuzz
corpus=$out/corpus/$t
mkdir -p "$corpus"
set -- -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
	-artifact_prefix="$out/crash-$t-" -print_final_stats=1
case $t in
deck)
	dict=$out/deck.dict
	{
		"$MBSIM" list keys | tr '.' '\n' | sed 's/\[\]$//' | grep -v '^\*$'
		for l in joints forces integrators; do
			"$MBSIM" list "$l" | cut -d' ' -f1
		done
		printf '%s\n' '#--set ' true false pi urand '{' '}' '[' ']' ': ' '- ' '.inf' '.nan' \
			repeat name
	} | sort -u | grep . | sed 's/["\\]/\\&/g; s/.*/"&"/' >"$dict"
	set -- "$@" -dict="$dict" -max_len=8192 "$corpus" tests/fuzz/seed/deck decks tests/bad
	;;
expr)
	set -- "$@" -max_len=512 "$corpus" tests/fuzz/seed/expr
	;;
curve | mesh)
	# inputs of at most 64 KB: a parse that allocates more than 64 MB at
	# once or holds more than 512 MB is a finding (the readers count
	# before they store, deck/mesh.h)
	set -- "$@" -max_len=65536 -rss_limit_mb=512 -malloc_limit_mb=64 "$corpus" \
		"tests/fuzz/seed/$t"
	;;
h5)
	# seeds: output files of the current build (the layout of
	# mbsim-output(5)), not committed
	seeds=$out/seed-h5
	mkdir -p "$seeds"
	for d in pendulum double_pendulum slider_crank; do
		[ -s "$seeds/$d.h5" ] || "$MBSIM" run "decks/$d.yaml" --set time.end=0.01 \
			-o "$seeds/$d.h5" --quiet >/dev/null
	done
	set -- "$@" -close_fd_mask=3 -max_len=65536 "$corpus" "$seeds"
	# libhdf5 asks for absurd sizes on damaged headers (253 GB and 12 GB
	# for one object header, H5C_protect) and copes when malloc returns
	# NULL; the release build's malloc then reserves address space it
	# never touches (12 GB claimed: 9 MB resident, compare exits 0).  So
	# allocations beyond 2 GB fail here (max_allocation_size_mb), as on a
	# machine without overcommit, and one that succeeds beyond that is
	# still a finding (-malloc_limit_mb = -rss_limit_mb)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}suppressions=tests/fuzz/h5.supp:fast_unwind_on_malloc=0:allocator_may_return_null=1:max_allocation_size_mb=2048"
	LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=tests/fuzz/h5-leak.supp"
	export ASAN_OPTIONS LSAN_OPTIONS
	;;
readers)
	# an input describes a file (fuzz_readers.c): a few hundred bytes
	# cover every dataset's operation (-len_control=0: the full length
	# at once, not grown from 4 bytes); the files go to TMPDIR
	set -- "$@" -close_fd_mask=3 -max_len=1024 -len_control=0 "$corpus"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}suppressions=tests/fuzz/h5.supp"
	LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=tests/fuzz/h5-leak.supp"
	export ASAN_OPTIONS LSAN_OPTIONS
	;;
*)
	set -- "$@" "$corpus" "tests/fuzz/seed/$t"
	;;
esac
echo "== fuzz $t for ${secs}s"
exec nice -n 10 "$out/fuzz/fuzz_$t" "$@"
