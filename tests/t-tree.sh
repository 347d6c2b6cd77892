#!/bin/sh
# t-tree.sh - the recursive joint-coordinate formulation tree (seed 003
# §3, src/form/tree.c) behind the ODE seam, stepped by rn4, w2 and adams:
#
#   MBSIM=build/mbsim sh tests/t-tree.sh
#
#   1. integrator.formulation: tree with a scheme not on the seam (hi) is
#      a deck error (exit 2) that names rn4, w2, adams; a misspelt value
#      gets a suggestion.
#   2. The double pendulum (2 revolute joints, 2 coordinates) and the
#      8-link spherical chain (24 coordinates), tree with rn4 (adaptive,
#      atol = rtol = 1e-10) against rp with rn4 (the same) and ra with
#      esdirk436l2sa2 (adaptive 1e-10, Newton tolerance 1e-10: the chain
#      deck's own 1e-7 limits ra to 1e-5 m): body positions agree to
#      1e-6 m at the output.times samples (0.5 s apart; `mbsim compare`,
#      4 and 2 common samples).  Measured: double pendulum (to 2 s)
#      tree-rp 3.2e-8, tree-ra 5.3e-8; chain (to 1 s) tree-rp 8e-9,
#      tree-ra 1.9e-7.  tree's residuals are those of round-off (the
#      forward pass meets every joint row exactly): 1e-12 at most
#      (measured 6e-16 position, 4e-14 velocity).
#   3. A free body (spring_top: 6 coordinates, a rotation chart re-based
#      in accept as its angle passes 1 rad) against ra (esdirk436l2sa2,
#      adaptive 1e-10): positions to 1e-6 m at 4 samples 0.25 s apart
#      (measured 2.4e-10), and at least one re-base counted
#      (repartitions).  The heavy top (a fast spin on a spherical joint,
#      99 re-bases in 2 s) against rp: 1e-6 m at 4 samples (measured
#      1.2e-9).
#   4. Closed loops exit 2 before any file is made, naming the joint
#      that closes the loop (slider_crank: trans; four_link: uni_b) and
#      the driver tree does not take yet; a distance joint is named as a
#      type without joint coordinates.
#   5. rn4 on the tree double pendulum at fixed steps 5e-3 .. 1.25e-3
#      (`mbsim converge`, reference the same at h/8): order 4 +- 0.3
#      (measured 4.00); w2 and adams complete the double pendulum.
# Prints "N passed, N failed"; exits 1 on any failure.

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

tight="--set integrator.adaptive=true --set integrator.atol=1e-10 --set integrator.rtol=1e-10"

# 1
expect_rc 2 "formulation tree with hi: deck error" "$MBSIM" run \
	"$decks/double_pendulum.yaml" --set integrator.formulation=tree -o "$tmp/x.h5"
if grep -q "integrator.formulation: tree needs one of the ODE schemes rn4, w2, adams" "$tmp/err"; then
	ok "the error names the schemes that take it"
else
	bad "the error names the schemes that take it"
fi
expect_rc 2 "formulation trie: deck error" "$MBSIM" run "$decks/double_pendulum.yaml" \
	--set integrator.method=rn4 --set integrator.formulation=trie -o "$tmp/x.h5"
if grep -q "did you mean 'tree'" "$tmp/err"; then ok "with a suggestion"; else bad "with a suggestion"; fi

# 2
sed 's/^output: {every: 1}/output: {times: [0.5, 1, 1.5, 2]}/' "$decks/double_pendulum.yaml" \
	>"$tmp/dp.yaml"
sed 's/^output: {every: 1}/output: {times: [0.5, 1]}/' "$decks/chain.yaml" >"$tmp/chain.yaml"
for c in "dp --set time.end=2" "chain --set time.end=1 --set parameters.N=8"; do
	name=${c%% *} set=${c#* }
	# shellcheck disable=SC2086 # set and tight are lists of words
	"$MBSIM" run "$tmp/$name.yaml" $set $tight --set integrator.method=rn4 \
		--set integrator.formulation=tree -o "$tmp/${name}_tree.h5" --json >"$tmp/out" \
		2>"$tmp/err" || bad "$name with tree: exit $?"
	json_check "$name with tree (rn4): complete, formulation tree, residuals <= 1e-12" \
		'j["status"] == "complete" and j["formulation"] == "tree" and j["max_position_residual"] <= 1e-12 and j["max_velocity_residual"] <= 1e-12'
	# shellcheck disable=SC2086
	"$MBSIM" run "$tmp/$name.yaml" $set $tight --set integrator.method=rn4 \
		-o "$tmp/${name}_rp.h5" -q 2>"$tmp/err" || bad "$name with rp: exit $?"
	# shellcheck disable=SC2086
	"$MBSIM" run "$tmp/$name.yaml" $set $tight --set integrator.method=esdirk436l2sa2 \
		--set integrator.tolerance=1e-10 -o "$tmp/${name}_ra.h5" -q 2>"$tmp/err" ||
		bad "$name with ra: exit $?"
	n=4
	[ "$name" = chain ] && n=2
	agree "$name: tree (rn4) and rp (rn4)" "$tmp/${name}_tree.h5" "$tmp/${name}_rp.h5" "$n"
	agree "$name: tree (rn4) and ra (esdirk436l2sa2)" "$tmp/${name}_tree.h5" "$tmp/${name}_ra.h5" "$n"
done

# 3
{ cat "$decks/spring_top.yaml"; echo "output: {times: [0.25, 0.5, 0.75, 1]}"; } >"$tmp/top.yaml"
sed 's/^output: {every: 10}/output: {times: [0.5, 1, 1.5, 2]}/' "$decks/heavy_top.yaml" >"$tmp/ht.yaml"
# shellcheck disable=SC2086
"$MBSIM" run "$tmp/top.yaml" $tight --set integrator.method=rn4 \
	--set integrator.formulation=tree -o "$tmp/top_tree.h5" --json >"$tmp/out" 2>"$tmp/err" ||
	bad "spring_top with tree: exit $?"
json_check "spring_top with tree: complete, its chart re-based" \
	'j["status"] == "complete" and j["repartitions"] >= 1'
# shellcheck disable=SC2086
"$MBSIM" run "$tmp/top.yaml" $tight -o "$tmp/top_ra.h5" -q 2>"$tmp/err" ||
	bad "spring_top with ra: exit $?"
agree "spring_top (free body): tree (rn4) and ra (esdirk436l2sa2)" "$tmp/top_tree.h5" \
	"$tmp/top_ra.h5" 4
for f in tree rp; do
	# shellcheck disable=SC2086
	"$MBSIM" run "$tmp/ht.yaml" $tight --set time.end=2 --set integrator.method=rn4 \
		--set integrator.formulation=$f -o "$tmp/ht_$f.h5" --json >"$tmp/out" 2>"$tmp/err" ||
		bad "heavy_top with $f: exit $?"
	[ $f = tree ] && json_check "heavy_top with tree: charts re-based" \
		'j["formulation"] == "tree" and j["repartitions"] >= 10'
done
agree "heavy_top: tree (rn4) and rp (rn4)" "$tmp/ht_tree.h5" "$tmp/ht_rp.h5" 4

# 4
for c in "slider_crank trans" "four_link uni_b"; do
	d=${c% *} j=${c#* }
	rm -f "$tmp/loop.h5"
	expect_rc 2 "$d with tree: deck error" "$MBSIM" run "$decks/$d.yaml" \
		--set integrator.method=rn4 --set integrator.formulation=tree -o "$tmp/loop.h5"
	if grep -q "$d.yaml:[0-9]*:[0-9]*: error: joint '$j' closes a loop" "$tmp/err" &&
		grep -q "error: driver 'motor' of joint 'rev_a': the tree formulation does not take drivers" "$tmp/err" &&
		[ ! -e "$tmp/loop.h5" ]; then
		ok "$d: names joint '$j' (FILE:LINE:COL) and the driver; no file"
	else
		bad "$d: names joint '$j' (FILE:LINE:COL) and the driver; no file"
	fi
done
expect_rc 2 "andrews with tree: deck error" "$MBSIM" run "$decks/andrews_squeezer.yaml" \
	--set integrator.method=rn4 --set integrator.formulation=tree -o "$tmp/x.h5"
if grep -q "error: joint '[^']*' is distance: the tree formulation has no joint coordinates" \
	"$tmp/err"; then
	ok "a distance joint is named"
else
	bad "a distance joint is named"
fi

# 5
expect_rc 0 "rn4 on tree: order 4 +- 0.3 on the double pendulum" "$MBSIM" converge \
	"$decks/double_pendulum.yaml" --steps 0.005,0.0025,0.00125 --set integrator.method=rn4 \
	--set integrator.formulation=tree --set time.end=1 --quantity bodies/bar2/position \
	--quantity bodies/bar2/velocity --expect-order 4:0.3
for m in w2 adams; do
	expect_rc 0 "$m on tree: the double pendulum completes" "$MBSIM" run \
		"$decks/double_pendulum.yaml" --set integrator.method=$m \
		--set integrator.formulation=tree --set integrator.adaptive=true --set time.end=2 \
		-o "$tmp/x.h5" --force -q
done

finish
