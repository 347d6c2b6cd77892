#!/bin/sh
# t-install.sh - make install puts the result tools and the example decks
# the manual pages use where mbsim(1) FILES says (PREFIX/share/mbsim/tools,
# PREFIX/share/mbsim/tests/statics), and the installed tools work from
# there, away from the source tree: sweep runs the installed mbsim,
# animate.py and plot.py import the installed mbsimlib.py, and the man
# pages' static and modes examples run in PREFIX/share/mbsim.  A temporary
# PREFIX (DESTDIR); the build directory of $MBSIM, so nothing is compiled.
# Usage: MBSIM=build/mbsim sh tests/t-install.sh (from the source root)

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

bdir=$(dirname "$MBSIM")
if [ "$(dirname "$bdir")" != "$top" ]; then
	skip "make install" "$MBSIM is not in a build directory of $top" 12
	finish
	exit $?
fi
prefix=$tmp/inst/opt/mb
if ! make -s -C "$top" install BUILD="$(basename "$bdir")" DESTDIR="$tmp/inst" PREFIX=/opt/mb \
	>"$tmp/out" 2>"$tmp/err"; then
	bad "make install" "$(cat "$tmp/err")"
	finish
	exit $?
fi
share=$prefix/share/mbsim
ok "make install DESTDIR=... PREFIX=/opt/mb"

# 1. the files, executable where they are programs
miss=
for t in sweep animate.py xdmf_render.py plot.py; do
	[ -f "$top/tools/$t" ] || continue
	[ -x "$share/tools/$t" ] || miss="$miss tools/$t"
done
[ -s "$share/tools/mbsimlib.py" ] || miss="$miss tools/mbsimlib.py"
for d in "$top"/tests/statics/*.yaml; do
	[ -s "$share/tests/statics/$(basename "$d")" ] || miss="$miss tests/statics/$(basename "$d")"
done
[ -z "$miss" ] && ok "tools and tests/statics decks installed" || bad "installed: missing$miss"

# everything below runs with the source tree out of sight: from a
# directory of its own, on the installed files only
work=$tmp/work
mkdir -p "$work"
cd "$work" || exit 1

# 2. sweep finds the installed mbsim by itself (no --mbsim)
expect_rc 0 "installed sweep on an installed deck" "$share/tools/sweep" \
	"$share/decks/double_pendulum.yaml" -o sw -j 1 integrator.step=1e-3,2e-3 -- --set time.end=0.02
pycheck "sweep: two complete runs, by the installed mbsim" '
import csv
rows = list(csv.DictReader(open("'"$work/sw/summary.csv"'")))
ok = len(rows) == 2 and all(r["status"] == "complete" for r in rows)
msg = "%s" % rows'
"$share/tools/sweep" "$share/decks/double_pendulum.yaml" -o sw2 integrator.step=1e-3 --dry-run \
	>"$tmp/dry" 2>&1
grep -q "$prefix/bin/mbsim" "$tmp/dry" "$work"/sw2/* 2>/dev/null &&
	ok "sweep's runs name $prefix/bin/mbsim" || bad "sweep's runs name $prefix/bin/mbsim" "$(cat "$tmp/dry")"

# 3. the man pages' examples on the installed tests/statics decks, run in
# PREFIX/share/mbsim (mbsim-static(1), mbsim-modes(1))
cd "$share" || exit 1
expect_rc 0 "installed: mbsim static tests/statics/car.yaml" "$prefix/bin/mbsim" static \
	tests/statics/car.yaml --json
expect_rc 0 "installed: mbsim modes tests/statics/chain2.yaml" "$prefix/bin/mbsim" modes \
	tests/statics/chain2.yaml --set parameters.c1=3 --json
cd "$work" || exit 1
expect_rc 0 "a run for the plotting tools" "$prefix/bin/mbsim" run "$share/decks/double_pendulum.yaml" \
	--set time.end=0.2 -o dp.h5

# 4. animate.py and plot.py import the installed mbsimlib (PYTHONPATH
# empty, the sources unreachable by path) and write their pictures
if "$PY" -c 'import matplotlib, yaml' 2>/dev/null; then
	expect_rc 0 "installed animate.py --strip" env PYTHONPATH= "$PY" "$share/tools/animate.py" \
		dp.h5 --strip strip.png --view yz
	[ -s strip.png ] && ok "animate.py wrote strip.png" || bad "animate.py wrote strip.png"
	if [ -x "$share/tools/plot.py" ]; then
		expect_rc 0 "installed plot.py" env PYTHONPATH= "$PY" "$share/tools/plot.py" dp.h5 \
			bodies/bar2/position:y -o p.svg
		[ -s p.svg ] && ok "plot.py wrote p.svg" || bad "plot.py wrote p.svg"
	fi
	pycheck "the installed mbsimlib is the one imported" '
import subprocess
out = subprocess.run([sys.executable, "-c", "import mbsimlib; print(mbsimlib.__file__)"],
                     cwd="'"$share/tools"'", capture_output=True, text=True,
                     env={"PYTHONPATH": ""}).stdout.strip()
ok = out.startswith("'"$share/tools"'")
msg = out'
else
	skip "installed animate.py and plot.py" "matplotlib or yaml" 5
fi
[ -x "$share/tools/xdmf_render.py" ] && ok "xdmf_render.py installed (pvpython runs it; t-xdmf)" ||
	bad "xdmf_render.py installed"

finish
