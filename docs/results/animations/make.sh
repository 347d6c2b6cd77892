#!/bin/sh
# Remake the animations of this directory (run from the source root after make).
set -e
d=docs/results/animations
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build/mbsim run decks/double_pendulum.yaml -o "$tmp/dp.h5" --quiet
/usr/bin/python3 tools/animate.py "$tmp/dp.h5" -o $d/double_pendulum.gif --strip $d/double_pendulum.png --view yz --frames 80 --fps 10
build/mbsim run decks/slider_crank.yaml -o "$tmp/sc.h5" --quiet --set time.end=1
/usr/bin/python3 tools/animate.py "$tmp/sc.h5" -o $d/slider_crank.gif --strip $d/slider_crank.png --view 30,20 --frames 40 --fps 20 --size 4,3.2
build/mbsim run decks/andrews_squeezer.yaml -o "$tmp/an.h5" --quiet
/usr/bin/python3 tools/animate.py "$tmp/an.h5" -o $d/andrews.gif --strip $d/andrews.png --view xy --frames 60 --fps 20
