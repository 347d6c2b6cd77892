#!/bin/sh
# t-xdmf-contact.sh - contacts drawn in the XDMF output (issue 32, Output):
# `mbsim run --xdmf` and `mbsim export --xdmf` of a run with contact add a
# temporal collection "contacts" to FILE.xdmf, each sample's contact points
# with the normal and friction force (impulse, nonsmooth model) as vectors
# (man mbsim-export(1)).  tests/xdmf_contact_check.py reads it with Python's
# XML parser and h5py against /contacts of the run (grids at the samples with
# contacts, datasets of the shapes the XML says, values equal) for a smooth
# deck (decks/contact_ball_drop.yaml) and a nonsmooth one (tests/nsc/box.yaml),
# whole and with export --every 7, and with pvpython (ParaView's reader) when
# it is installed.
# Usage: MBSIM=build/mbsim sh tests/t-xdmf-contact.sh   (run from the source root)

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

if ! "$PY" -c 'import h5py' 2>/dev/null; then
	bad "$PY lacks h5py (tools/install-deps installs it)"
	finish
	exit
fi
check=$top/tests/xdmf_contact_check.py
# xml_report NAME FILE: the checks of xdmf_contact_check.py (xml) counted here
report() {
	while IFS= read -r line; do
		case $line in
		ok*) ok "$1: ${line#ok   }" ;;
		FAIL*) bad "$1: ${line#FAIL }" ;;
		*) echo "     $line" ;;
		esac
	done <"$2"
}
cd "$tmp" || exit 1
# the smooth ball from 1.1 m: it lands after sqrt(2 / 9.81) = 0.45 s and its
# first contact lasts some 0.3 ms (Hertz, the deck's comment), so 0.5 s of
# samples every 1e-4 s hold a few with contact
expect_rc 0 "run --xdmf, smooth ball" "$MBSIM" run "$decks/contact_ball_drop.yaml" -o ball.h5 \
	--xdmf --set time.end=0.5
grep -q "contact points" err && ok "run --xdmf says how many contact points it drew" ||
	bad "run --xdmf: contact points said" "$(cat err)"
"$PY" "$check" xml ball.xdmf ball.h5 >chk 2>&1
report "smooth" chk
# the nonsmooth box bounces and settles on four corners (impulses)
expect_rc 0 "run --xdmf, nonsmooth box" "$MBSIM" run "$top/tests/nsc/box.yaml" -o box.h5 \
	--xdmf --set time.end=0.5
"$PY" "$check" xml box.xdmf box.h5 >chk 2>&1
report "nonsmooth" chk
expect_rc 0 "export --xdmf --every 7, nonsmooth box" "$MBSIM" export --xdmf --every 7 box.h5
"$PY" "$check" xml box.xdmf box.h5 >chk 2>&1
report "nonsmooth, every 7" chk
# a file whose /contacts rows disagree with its counts is refused
cp box.h5 cut.h5
"$PY" -c 'import h5py; f = h5py.File("cut.h5", "a"); f["/contacts/count"][-1] += 1'
expect_rc 1 "export of /contacts whose counts exceed its rows" "$MBSIM" export --xdmf cut.h5
grep -q "/contacts/point has" err || bad "export of a cut /contacts: message" "$(cat err)"
[ -e cut.xdmf ] && bad "export of a cut /contacts left cut.xdmf"

if ! command -v pvpython >/dev/null 2>&1; then
	skip "ParaView" "no pvpython (Debian's paraview and python3-paraview; tools/install-deps)" 4
	finish
	exit
fi
for f in ball box; do
	timeout 300 pvpython "$check" pv $f.xdmf $f.h5 >chk 2>/dev/null
	report "$f" chk
done
finish
