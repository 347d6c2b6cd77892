#!/bin/sh
# make.sh - the picture of README.md: decks/slider_crank.yaml at t = 0.3 s,
# rendered by ParaView from the XDMF file of its run (mbsim-export(1)).
# Run from the source root after make; needs pvpython (tools/install-deps)
# and, without a display, xvfb-run.
set -eu
out=docs/results/xdmf
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build/mbsim run decks/slider_crank.yaml -o "$tmp/sc.h5" --set time.end=0.5 --xdmf --quiet
run=""
[ -n "${DISPLAY:-}" ] || run="xvfb-run -a"
$run pvpython tools/xdmf_render.py "$tmp/sc.xdmf" "$out/slider_crank.png" --time 0.3 \
	--size 480 360 --view -60,25 --shaded
