#!/bin/sh
# t-plot.sh - tools/plot.py (README, man mbsim-workflows(7)): on the files
# of a tools/sweep run and a deck of decks/, the PNG, PDF and SVG are
# written and non-empty, the SVG has one line group ("series N") per file
# and column; the figure's matplotlib objects (plot.figure) hold, per
# panel, one line per file whose data are the file's series (read by h5py
# here), labelled by the sweep's parameter values, the y axis with the
# series' units; bad input ends with one line on stderr, exit 1 (2 for
# usage), no traceback and no plot written.
# Usage: MBSIM=build/mbsim sh tests/t-plot.sh   (run from the source root)

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

if ! "$PY" -c 'import h5py, matplotlib' 2>/dev/null; then
	skip "every check" "$PY lacks h5py or matplotlib (tools/install-deps installs them)" 31
	finish
	exit
fi
plot="$top/tools/plot.py"
cd "$tmp" || exit 1

"$MBSIM" run "$decks/slider_crank.yaml" -o sc.h5 --quiet --set time.end=0.1 2>err ||
	bad "run slider_crank" "$(cat err)"
if command -v parallel >/dev/null 2>&1; then
	"$top/tools/sweep" -o sw -j 2 --mbsim "$MBSIM" "$decks/double_pendulum.yaml" \
		integrator.method=hi,lms2 integrator.step=1e-3,2e-2 -- --set time.end=0.2 >/dev/null 2>err ||
		bad "sweep of the double pendulum" "$(cat err)"
else
	# the same four files, one run at a time, as tools/sweep names them
	mkdir sw
	for m in hi lms2; do for h in 1e-3 2e-2; do
		"$MBSIM" run "$decks/double_pendulum.yaml" -o "sw/method=${m}_step=$h.h5" --quiet \
			--set integrator.method=$m --set integrator.step=$h --set time.end=0.2 2>err ||
			bad "run $m $h" "$(cat err)"
	done; done
fi

# 1. the sweep: 4 files x (bar2's position, 3 columns + energy/total, 1) = 16 lines
expect_rc 0 "sweep plot to SVG" "$PY" "$plot" sw/*.h5 bodies/bar2/position energy/total -o sw.svg
n=$(grep -c 'id="series [0-9]*"' sw.svg)
[ "$n" = 16 ] && ok "sw.svg: 16 line groups (4 files x 4 columns)" || bad "sw.svg: $n line groups, want 16"
grep -q "sw.svg, 16 lines" err && ok "plot.py says what it wrote" || bad "plot.py message" "$(cat err)"
for ext in png pdf; do
	expect_rc 0 "sweep plot to .$ext" "$PY" "$plot" sw/*.h5 bodies/bar2/position:y -o "sw.$ext"
	[ -s "sw.$ext" ] && ok "sw.$ext not empty" || bad "sw.$ext empty"
done
head -c 8 sw.png | od -An -c | grep -q 'P   N   G' && ok "sw.png is a PNG" || bad "sw.png is no PNG"
head -c 5 sw.pdf | grep -q '%PDF-' && ok "sw.pdf is a PDF" || bad "sw.pdf is no PDF"
# the default output: the first file's name with .png
expect_rc 0 "default output" "$PY" "$plot" sc.h5 joints/rev_a/coordinate
[ -s sc.png ] && ok "default output sc.png" || bad "no sc.png" "$(ls)"

# 2. the figure's objects against the files, read here by h5py
pycheck "figure: per panel one line per file, data, labels, units" '
sys.path.insert(0, "'"$top"'/tools")
import glob, plot
files = sorted(glob.glob("sw/*.h5"))
fig, n = plot.figure(files, ["bodies/bar2/position:y", "energy/total"])
a0, a1 = fig.axes
errs = []
if n != 8 or len(a0.get_lines()) != 4 or len(a1.get_lines()) != 4:
    errs.append("lines %d: %d + %d, want 4 + 4" % (n, len(a0.get_lines()), len(a1.get_lines())))
for f, l0, l1 in zip(files, a0.get_lines(), a1.get_lines()):
    with h5py.File(f, "r") as h:
        t = h["time"][()]
        names = [x.decode() for x in h["bodies/names"][()]]
        y = h["bodies/position"][:, names.index("bar2"), 1]
        e = h["energy/total"][()]
    if not (np.array_equal(l0.get_xdata(), t) and np.array_equal(l0.get_ydata(), y)
            and np.array_equal(l1.get_ydata(), e)):
        errs.append("%s: line data differ from the file" % f)
    m, s = f[len("sw/method="):-3].split("_step=")
    if l0.get_label() != "method=%s, step=%s" % (m, s):
        errs.append("%s: label %r" % (f, l0.get_label()))
if a0.get_ylabel() != "bodies/bar2/position:y, m" or a1.get_ylabel() != "energy/total, J" \
        or a1.get_xlabel() != "time, s":
    errs.append("axis labels %r %r %r" % (a0.get_ylabel(), a1.get_ylabel(), a1.get_xlabel()))
ok = not errs
msg = "; ".join(errs)'
pycheck "figure: an orientation without COMP is 4 lines w, x, y, z" '
sys.path.insert(0, "'"$top"'/tools")
import plot
fig, n = plot.figure(["sc.h5"], ["bodies/crank/orientation"])
labs = [l.get_label() for l in fig.axes[0].get_lines()]
ok = n == 4 and labs == ["sc.h5: w", "sc.h5: x", "sc.h5: y", "sc.h5: z"]
msg = "%d %s" % (n, labs)'

# the --set values come back whole from the "settings" attribute, a
# backslash and a line break unescaped (cli_join_sets writes them \\ and \n)
"$MBSIM" run "$decks/double_pendulum.yaml" -o esc.h5 --quiet --set time.end=0.01 \
	--set 'title=a\b
c' 2>err || bad "run with an escaped title" "$(cat err)"
pycheck "labels: settings unescaped" '
sys.path.insert(0, "'"$top"'/tools")
import plot
s = plot.settings(h5py.File("esc.h5", "r"))
ok = s == {"time.end": "0.01", "title": "a\\b\nc"}
msg = repr(s)'

# make install puts plot.py (and the mbsimlib.py it imports) under
# PREFIX/share/mbsim/tools, where it runs (the build directory of $MBSIM:
# nothing is compiled anew)
bdir=$(dirname "$MBSIM")
if [ "$(dirname "$bdir")" = "$top" ]; then
	if make -s -C "$top" install BUILD="$(basename "$bdir")" DESTDIR="$tmp/inst" PREFIX=/usr \
		>out 2>err; then
		expect_rc 0 "installed plot.py runs" "$PY" "$tmp/inst/usr/share/mbsim/tools/plot.py" sc.h5 \
			energy/total -o inst.svg
	else
		bad "make install" "$(cat err)"
	fi
else
	skip "installed plot.py" "$MBSIM is not in a build directory of $top" 1
fi

# 3. bad input: one line, no traceback, nothing written
refuse() {
	name=$1 want=$2 pat=$3
	shift 3
	rm -f bad.png
	expect_rc "$want" "$name: exit $want" "$PY" "$plot" "$@" -o bad.png
	if grep -q Traceback err || ! grep -q "$pat" err || [ -e bad.png ]; then
		bad "$name: clean message, no plot" "$(cat err)" "$(ls bad.png 2>/dev/null)"
	else
		ok "$name: one line ($(tail -1 err)), no plot"
	fi
}
refuse "missing file" 1 "nothing.h5: no such file" sc.h5 nothing.h5 energy/total
echo "not hdf5" >plain.h5
refuse "not HDF5" 1 "not an HDF5 file" plain.h5 energy/total
"$PY" -c 'import h5py; h5py.File("other.h5", "w")["x"] = [1.0]'
refuse "HDF5, not an output" 1 "not an output of mbsim run" other.h5 energy/total
"$MBSIM" modes "$decks/double_pendulum.yaml" -o modes.h5 >/dev/null 2>&1
refuse "a modes file" 1 "a modes file" modes.h5 energy/total
refuse "missing quantity" 1 "no series 'bodies/nobody/position'" sc.h5 bodies/nobody/position:x
refuse "missing component" 1 "no component 'q'" sc.h5 bodies/crank/position:q
refuse "no quantity" 2 "no quantity to plot" sc.h5
refuse "no file" 2 "no result file" energy/total

finish
