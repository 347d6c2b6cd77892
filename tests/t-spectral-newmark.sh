#!/bin/sh
# t-spectral-newmark.sh - mbsim spectral on the Newmark family
# (man/mbsim-spectral.1): newmark (beta 1/4, gamma 1/2, the trapezoidal
# rule) has on x'' + w^2 x = 0 the principal root exp(i 2 atan(w dt/2)):
# spectral radius 1, amplitude decay 0 and period elongation
# 100 (w dt / (2 atan(w dt / 2)) - 1) % at every ratio (closed form, the
# trapezoidal rule's amplification factor); before, past w dt = pi a
# spurious root was taken (AD -nan, PE -100 at ratios 1 and 2).  The
# header names beta and gamma, not an unused rho_inf; tangent_newmark's
# refusal says to use newmark.
# Usage: MBSIM=build/mbsim sh tests/t-spectral-newmark.sh (from the source root)

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

expect_rc 0 "spectral newmark --json" "$MBSIM" spectral --method newmark --json
# ratio = dt / T with T = 1 s, so w dt = 2 pi ratio; tolerances: the
# measured map is exact to round-off (1e-9 relative in PE, 1e-9 in AD
# and radius; measured 3.4e-12 at most in AD)
json_check "newmark: radius 1, AD 0, PE the trapezoidal closed form at all 51 ratios" '
len(j["ratio"]) == 51 and j["rho_inf"] is None and j["beta"] == 0.25 and j["gamma"] == 0.5 and
all(abs(r - 1) <= 1e-9 and abs(a) <= 1e-9 and
    abs(p - 100 * (2 * math.pi * x / (2 * math.atan(math.pi * x)) - 1)) <= 1e-9 * max(1, abs(p))
    for x, r, a, p in zip(j["ratio"], j["spectral_radius"], j["amplitude_decay"], j["period_elongation"]))'

expect_rc 0 "spectral newmark (text)" "$MBSIM" spectral --method newmark
if grep -q "nan" "$tmp/out"; then
	bad "newmark text: no nan" "$(grep -n nan "$tmp/out" | head -3)"
else
	ok "newmark text: no nan"
fi
if head -1 "$tmp/out" | grep -q "^# newmark, beta = 0.25, gamma = 0.5, " && ! grep -q rho_inf "$tmp/out"; then
	ok "newmark header: beta and gamma, no rho_inf"
else
	bad "newmark header: beta and gamma, no rho_inf" "$(head -1 "$tmp/out")"
fi
# the same continuation for the other schemes: no nan in lms2's table
expect_rc 0 "spectral lms2 --measured" "$MBSIM" spectral --method lms2 --measured
grep -q nan "$tmp/out" && bad "lms2 measured: no nan" || ok "lms2 measured: no nan"

expect_rc 64 "tangent_newmark refused" "$MBSIM" spectral --method tangent_newmark
grep -q "use \`--method newmark\`" "$tmp/err" && ok "the refusal says what works" ||
	bad "the refusal says what works"
expect_rc 64 "--rho with newmark: a usage error, not ignored" "$MBSIM" spectral --method newmark --rho 0.6
grep -q "rho does not apply to newmark" "$tmp/err" && ok "it says why" || bad "--rho with newmark: message" "$(cat "$tmp/err")"

finish
