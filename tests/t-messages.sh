#!/bin/sh
# t-messages.sh - messages a new user met that said something untrue:
#   1. mbsim check of decks/small_mass_a.yaml (bodies of mass 0, which
#      only bdf takes) said "singular mass block of body 0 near an unknown
#      constraint": no constraint is involved; it names the body now.
#   2. mbsim converge's automatic reference said "no higher-order scheme
#      available" for every scheme (lms2 has lms3, esdirk...): it says
#      what the reference is and how to give another.
# Usage: MBSIM=build/mbsim sh tests/t-messages.sh (from the source root)

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

# 1. the deck's first body aux_i has mass 0 and inertia 0 (the deck)
expect_rc 0 "check small_mass_a.yaml" "$MBSIM" check "$decks/small_mass_a.yaml"
if grep -q "unknown constraint" "$tmp/out" "$tmp/err"; then
	bad "check small_mass_a: no 'unknown constraint'" "$(cat "$tmp/out" "$tmp/err")"
elif grep -q "body 'aux_i' is singular (mass or inertia 0); only the scheme bdf" "$tmp/out"; then
	ok "check small_mass_a: names body 'aux_i' and bdf"
else
	bad "check small_mass_a: names body 'aux_i' and bdf" "$(cat "$tmp/out")"
fi

# 2. converge's auto reference, for lms2 (which has higher-order siblings)
expect_rc 0 "converge lms2, auto reference" "$MBSIM" converge "$decks/double_pendulum.yaml" \
	--set integrator.method=lms2 --set time.end=0.05 --steps 1e-3,5e-4 --quiet
if grep -q "no higher-order scheme" "$tmp/out"; then
	bad "converge: no claim that no higher-order scheme exists" "$(grep reference "$tmp/out")"
elif grep -q "^reference: same scheme at h/8 (lms2, h = 6.25e-05; not independent of the runs: --ref FILE.h5" "$tmp/out"; then
	ok "converge: the reference is said, and how to give another"
else
	bad "converge: the reference is said, and how to give another" "$(grep reference "$tmp/out")"
fi

finish
