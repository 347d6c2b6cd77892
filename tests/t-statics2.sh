#!/bin/sh
# t-statics2.sh - mbsim static on slender beams (Newton on the tangent
# stiffness, line search, watchdog, load stepping), a motor that
# saturates, decks without an integrator, and the free-motion test of
# mbsim modes.  Decks in tests/statics/; the references are analytic or
# from tools/elastica_ref.py (Reissner's planar elastica by shooting,
# SciPy), never from an earlier mbsim run.
#
#   MBSIM=build/mbsim sh tests/t-statics2.sh
#
#   1. cantilever.yaml (steel, 1 m, 50 x 10 mm, EI = 875 N m^2), 8 and 16
#      elements, tip force P = 10, 100 N and PL^2/EI = 0.1, 1, 3: converged,
#      the tip within 5e-6 m (8 elements) and 3e-7 m (16) of the elastica:
#      the elements' discretization error, which falls 16-fold per halving
#      of the element (measured 2.8e-6 and 1.8e-7 m at PL^2/EI = 3, 2e-7
#      and 1.2e-8 m at 1); at 10 and 100 N in at most 10 iterations
#      (Newton's quadratic convergence: 3 and 4 measured);
#   2. moment.yaml (EI = 100, EA = GA = 1e7, 4 elements): M = 0.1 N m, the
#      tip on the arc of radius EI / M to 1e-10 m (pure bending: the
#      elements represent the arc exactly but for rounding, 8e-15 m
#      measured); M = pi EI / L at 16 elements, the half circle, to 5e-7 m
#      (discretization: 5.7e-5 m at 4 elements, 2.2e-7 at 16); M = 2 pi EI
#      / L at 4 elements: the tip back at the root to 1e-8 m;
#   3. crank_rocker.yaml at t = 1 with limit 0.5 N m: the motor saturates
#      (kp (w t - phi) far below -0.5), and the equilibrium is where its
#      effort -0.5 balances gravity through the linkage: dV/dphi = -0.5 to
#      1e-6 N m, V the potential of the deck's masses along the four-bar's
#      closed-form positions at the crank angle found (central
#      differences, step 1e-5 rad); with limit 1000 it converges inside
#      the motor's range;
#   4. a beam deck without integrator: static and modes run; check refuses
#      it for run (exit 2), saying no integrator was given and that static
#      and modes need none;
#   5. modes of two_scales.yaml: w = 1e-2 and 1e4 rad/s, neither a free
#      motion, both to 1e-6 relative; loop_free_slider.yaml, whose one
#      freedom no stiffness holds but whose loaded loop makes the
#      differences' rounding 1e-16: one free motion (1.6e-9 Hz before);
#   6. options: --max-iterations, --load-steps, --tolerance; usage errors.
# Prints "N passed, N failed, N skipped"; exits 1 on any failure.

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

sd=$top/tests/statics

tipcheck() {	# name, bound, reference "x w" -- the tip of $tmp/out
	json_check "$1" "
(lambda p, x, w: j['status'] == 'converged' and max(abs(p[0] - x), abs(-p[2] - w)) <= $2)(
 [b['position'] for b in j['bodies'] if b['name'] == 'tip'][0], *[float(v) for v in '''$3'''.split()])"
}

# 1. the steel cantilever against the elastica
if have_scipy; then
	for P in 10 100 87.5 875 2625; do
		ref=$("$PY" "$top/tools/elastica_ref.py" "$P") || { bad "elastica_ref.py $P failed"; continue; }
		for n in 8 16; do
			bound=5e-6
			[ "$n" = 16 ] && bound=3e-7
			expect_rc 0 "static cantilever P=$P n=$n" "$MBSIM" static "$sd/cantilever.yaml" \
				--set parameters.P="$P" --set parameters.n="$n" --json
			tipcheck "cantilever P=$P n=$n: tip within $bound m of the elastica ($ref)" "$bound" "$ref"
			case $P in 10 | 100)
				json_check "cantilever P=$P n=$n: at most 10 iterations" \
					"j['iterations'] <= 10 and j['load_factor'] == 1" ;;
			esac
		done
	done
else
	skip "cantilever against the elastica (5 loads x 2 meshes: 24 checks)" "no scipy for $PY (tools/elastica_ref.py)" 24
fi

# 2. tip moments: circular arcs of radius EI / M
arc() {	# M n bound
	expect_rc 0 "static moment.yaml M=$1 n=$2" "$MBSIM" static "$sd/moment.yaml" \
		--set parameters.M="$1" --set parameters.n="$2" --json
	json_check "moment M=$1 n=$2: tip on the arc of radius EI / M to $3 m" "
(lambda p, R: math.dist(p, [R * math.sin(1 / R), 0, R * (1 - math.cos(1 / R))]) <= $3)(
 [b['position'] for b in j['bodies'] if b['name'] == 'tip'][0], 100 / $1)"
}
arc 0.1 4 1e-10
arc 314.15926535897932 16 5e-7
arc 628.31853071795865 4 1e-8

# 3. the crank-rocker whose motor saturates
expect_rc 0 "static crank_rocker.yaml --time 1 limit 0.5" "$MBSIM" static "$sd/crank_rocker.yaml" \
	--time 1 --set parameters.limit=0.5 --json
pycheck "crank-rocker: gravity balances the saturated effort -0.5 N m (dV/dphi to 1e-6)" "
import math
j = json.load(open('$tmp/out'))
w, _, _, z = j['bodies'][0]['orientation']
phi = 2 * math.atan2(z, w)    # the crank's angle about +z
def V(f):
    # the deck's potential (masses 1, 2, 20 kg at their links' midpoints)
    # at crank angle f: B on the crank (0.1 m), C where the coupler (0.35 m
    # from B) meets the rocker (0.3 m from D = (0.35, 0))
    B = (0.1 * math.cos(f), 0.1 * math.sin(f))
    dx, dy = 0.35 - B[0], -B[1]
    L = math.hypot(dx, dy)
    x = (0.35**2 - 0.3**2 + L * L) / (2 * L)
    h = math.sqrt(0.35**2 - x * x)
    C = (B[0] + (x * dx - h * dy) / L, B[1] + (x * dy + h * dx) / L)
    return 9.81 * (1 * B[1] / 2 + 2 * (B[1] + C[1]) / 2 + 20 * C[1] / 2)
dV = (V(phi + 1e-5) - V(phi - 1e-5)) / 2e-5    # central differences
# saturated: kp (w t - phi) = 2000 (1 - phi) far below -0.5
ok = abs(dV + 0.5) <= 1e-6 and 2000 * (1 - phi) < -0.5
msg = 'crank angle %r rad, dV/dphi %r N m' % (phi, dV)"
expect_rc 0 "static crank_rocker.yaml --time 1 limit 1000" "$MBSIM" static "$sd/crank_rocker.yaml" \
	--time 1 --json
json_check "crank-rocker, limit 1000: converged" "j['status'] == 'converged'"

# 4. no integrator
expect_rc 0 "static of a beam deck without integrator" "$MBSIM" static "$sd/cantilever.yaml"
expect_rc 0 "modes of a beam deck without integrator" "$MBSIM" modes "$sd/cantilever.yaml"
expect_rc 2 "check of a beam deck without integrator (run would fail)" "$MBSIM" check \
	"$sd/cantilever.yaml"
if grep -q "cantilever.yaml:[0-9]*:[0-9]*: error: no integrator.method given.*static and modes (but for modes --at) need none" \
	"$tmp/err"; then
	ok "check says no integrator was given and that static and modes need none"
else
	bad "check's message" "$(cat "$tmp/err")"
fi

# 5. free motions relative to the stiffness the mode engages
expect_rc 0 "modes two_scales.yaml --json" "$MBSIM" modes "$sd/two_scales.yaml" --json
json_check "two scales: 1e-2 and 1e4 rad/s to 1e-6, no free motion" "
(lambda m: len(m) == 2 and not any(e['free'] for e in m)
 and all(abs(e['frequency'] - w / (2 * math.pi)) <= 1e-6 * w / (2 * math.pi)
         for e, w in zip(m, (1e-2, 1e4))))(j['modes'])"
expect_rc 0 "modes loop_free_slider.yaml --json" "$MBSIM" modes "$sd/loop_free_slider.yaml" --json
json_check "a loop whose one freedom is a free slider: one free motion, max_frequency 0 (it read 1.6e-9 Hz)" "
len(j['modes']) == 1 and j['modes'][0]['free'] and j['max_frequency'] == 0"

# 6. options
expect_rc 1 "static --max-iterations 2 --load-steps 1 at PL^2/EI = 3 fails" "$MBSIM" static \
	"$sd/cantilever.yaml" --set parameters.P=2625 --max-iterations 2 --load-steps 1 --json
json_check "the failure as JSON: iterations 2, load factor, residual, body" "
j['status'] == 'failed' and j['iterations'] == 2 and j['load_factor'] == 1
 and j['force_residual'] > 0 and j['body'] != ''"
expect_rc 0 "static --load-steps 8 at PL^2/EI = 3" "$MBSIM" static "$sd/cantilever.yaml" \
	--set parameters.P=2625 --load-steps 8 --json
json_check "--load-steps 8: load factor 1 in at least 1 and at most 8 steps" "
j['status'] == 'converged' and j['load_factor'] == 1 and 1 <= j['load_steps'] <= 8"
expect_rc 0 "static (default tolerance)" "$MBSIM" static "$sd/cantilever.yaml" --json
cp "$tmp/out" "$tmp/default.json"
expect_rc 0 "static --tolerance 1e-6" "$MBSIM" static "$sd/cantilever.yaml" --tolerance 1e-6 --json
json_check "--tolerance 1e-6: the force tolerance 1e4 times the default 1e-10's" "
abs(j['force_tolerance'] - 1e4 * json.load(open('$tmp/default.json'))['force_tolerance'])
 <= 1e-12 * j['force_tolerance'] and j['force_residual'] <= j['force_tolerance']"
expect_rc 64 "static --tolerance 2" "$MBSIM" static "$sd/cantilever.yaml" --tolerance 2
expect_rc 64 "static --max-iterations 0" "$MBSIM" static "$sd/cantilever.yaml" --max-iterations 0
expect_rc 64 "static --load-steps x" "$MBSIM" static "$sd/cantilever.yaml" --load-steps x
finish
