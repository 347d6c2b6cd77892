#!/bin/sh
# t-auto.sh - integrator.method: auto (src/sim/choose.c; mbsim-deck(5),
# INTEGRATOR; issue 37, item 3): the scheme and formulation chosen from
# the model by the documented rule, said at set-up and in run --json.
#
#   MBSIM=build/mbsim sh tests/t-auto.sh
#
#   1. Each rule on a deck that meets it first (a run of 10 ms, --json:
#      integrator, formulation, method_chosen):
#        tests/nsc/ball.yaml (nonsmooth contact)          moreau on ra
#        decks/coupled_oscillators.yaml, m1 = 0 (massless) bdf on tree
#        decks/flexible_four_bar.yaml (beams)             lms2 on ra
#        decks/contact_ball_drop.yaml (smooth contact)    lms2 on ra
#        decks/double_pendulum.yaml (a tree, no springs)  dopri5 on tree
#        decks/coupled_oscillators.yaml (a tree; spring1: sqrt(c1/m1) =
#          sqrt(1e4 / 1e-3) = 3162 rad/s, times step 1e-3 s = 3.2 > 1:
#          stiff)                                         bdf on tree
#        the same at step 1e-4 s (0.32 <= 1)              dopri5 on tree
#        decks/four_link.yaml (a closed loop, no springs) adams on rp
#        decks/andrews_squeezer.yaml (closed loops; spring: sqrt(c0/m3) =
#          sqrt(4530 / 0.02373) = 437 rad/s, times step 1e-2 s = 4.4 > 1:
#          stiff)                                         rn4 on rp
#      and the note at set-up names the scheme and the reason.
#   2. A deck that names no scheme keeps the default hi, and method_chosen
#      is null (tests/user/wheels.yaml): auto is asked for, never implied.
#   3. auto with integrator.formulation: exit 2 at the key.
#   4. What auto chose is the scheme itself: the double pendulum under
#      auto is bit for bit the run under dopri5 on tree, adaptive.
# Prints "N passed, N failed, N skipped"; exits 1 on any failure.

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

# chosen NAME DECK METHOD FORMULATION WORD SETTINGS...: auto on DECK picks
# METHOD on FORMULATION, and method_chosen has WORD
chosen() {
	name=$1 deck=$2 want=$3 form=$4 word=$5
	shift 5
	"$MBSIM" run "$deck" --set integrator.method=auto --set time.end=0.01 "$@" \
		-o "$tmp/a.h5" --force --json >"$tmp/out" 2>"$tmp/err"
	json_check "$name: $want on $form" "j['status'] == 'complete' and j['integrator'] == '$want'
	 and j['formulation'] == '$form' and '$word' in j['method_chosen']"
}
chosen "nonsmooth contact" "$top/tests/nsc/ball.yaml" moreau ra "nonsmooth contact"
chosen "a massless body" "$decks/coupled_oscillators.yaml" bdf tree "mass 0" \
	--set parameters.m1=0
chosen "beams" "$decks/flexible_four_bar.yaml" lms2 ra "beams"
chosen "smooth contact" "$decks/contact_ball_drop.yaml" lms2 ra "smooth contact"
chosen "a tree without springs" "$decks/double_pendulum.yaml" dopri5 tree "a tree rooted"
chosen "a tree with a stiff spring (3.2 > 1)" "$decks/coupled_oscillators.yaml" bdf tree \
	"stiff spring"
chosen "the same at step 1e-4 s (0.32 <= 1)" "$decks/coupled_oscillators.yaml" dopri5 tree \
	"fastest spring" --set integrator.step=1e-4
chosen "a closed loop" "$decks/four_link.yaml" adams rp "not a tree"
chosen "closed loops with a stiff spring (4.4 > 1)" "$decks/andrews_squeezer.yaml" rn4 rp \
	"stiff spring" --set integrator.step=1e-2
"$MBSIM" run "$decks/double_pendulum.yaml" --set integrator.method=auto --set time.end=0.01 \
	-o "$tmp/a.h5" --force --quiet 2>"$tmp/err"
grep -q "note: integrator.method: auto chose dopri5 on tree, adaptive: a tree rooted at the ground" \
	"$tmp/err" && ok "the note at set-up names scheme and reason" ||
	bad "the note at set-up names scheme and reason" "$(cat "$tmp/err")"

# 2. the default stays
"$MBSIM" run "$top/tests/user/wheels.yaml" --set time.end=0.01 -o "$tmp/w.h5" --json \
	>"$tmp/out" 2>"$tmp/err"
json_check "no scheme named: hi, method_chosen null" \
	"j['integrator'] == 'hi' and j['method_chosen'] is None"

# 3. no formulation with auto
expect_rc 2 "auto with integrator.formulation: exit 2" "$MBSIM" run "$decks/chain.yaml" \
	--set integrator.method=auto --set integrator.formulation=rp -o "$tmp/x.h5"
grep -q "^--set:1:24: error: integrator.method: auto chooses the formulation too" "$tmp/err" &&
	ok "... at the key" || bad "... at the key" "$(cat "$tmp/err")"

# 4. auto is the scheme it names
if "$MBSIM" run "$decks/double_pendulum.yaml" --set integrator.method=auto --set time.end=0.5 \
	-o "$tmp/a.h5" --force --quiet 2>"$tmp/err" &&
	"$MBSIM" run "$decks/double_pendulum.yaml" --set integrator.method=dopri5 \
		--set integrator.formulation=tree --set integrator.adaptive=true --set time.end=0.5 \
		-o "$tmp/d.h5" --force --quiet 2>"$tmp/err"; then
	d=$(pos_diff "$tmp/a.h5" "$tmp/d.h5")
	[ "${d% *}" = 0 ] || [ "${d% *}" = 0.0 ] &&
		ok "double pendulum: auto and dopri5/tree adaptive agree bit for bit" ||
		bad "double pendulum: auto and dopri5/tree adaptive agree bit for bit" "got $d"
else
	bad "double pendulum under auto and dopri5" "$(cat "$tmp/err")"
fi

finish
