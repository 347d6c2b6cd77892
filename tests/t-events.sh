#!/bin/sh
# t-events.sh - the deck's events (src/sim/events.c, mbsim-deck(5) EVENTS):
#
#   1. a ball released from rest at h0 = 2 m under g = 9.81 m/s^2 (a free
#      body, tests/events/ball.yaml, and on a translational joint,
#      ball_slider.yaml) with the stop event z.ball - h1 falling, h1 = 0.5:
#      lms2 and rn4 (second and fourth order, exact for a motion of
#      constant acceleration) stop with /events/time equal to the closed
#      form sqrt(2 (h0 - h1) / g) to 1e-9 s; hi, first order (its
#      registry row), is checked against the cubic Hermite interpolant of
#      its own written samples, the root found here by scipy's brentq, to
#      1e-11 s (the located bracket is 1e-12 of the 1e-3 s step), and
#      against the closed form to one step (its first-order lag); every
#      run: status "stopped: event low at t = ...", exit 0, the summary
#      and JSON say "stopped", the last sample is the end of the step
#      holding the event;
#   2. record on an undamped oscillator x = cos(2 t) over 50 periods
#      (tests/events/oscillator.yaml): rn4 at h = 1e-3 finds all 100 zero
#      crossings, each within 1e-9 s of the closed form (k + 1/2) pi / 2
#      (rn4 is fourth order: its phase error at h = 1e-3 over 157 s stays
#      well below that), directions alternating -1, +1; the run completes;
#      each is also its own interpolant's root to 1e-11 s; lms2 finds 100
#      too, each its interpolant's root to 1e-11 s and within 1e-3 s of
#      the closed form (a second-order scheme's phase error, of the order
#      omega^2 h^2 t / 12 = 5e-5 s here);
#   3. usage errors: an unknown name in a condition, a bad direction or
#      action, a missing condition, a condition that does not parse: exit 2
#      at FILE:LINE:COL.
#
#   MBSIM=build/mbsim sh tests/t-events.sh
# Prints "N passed, N failed, N skipped"; exits 1 on any failure.

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

ev=$top/tests/events

# the root of the cubic Hermite interpolant of the samples' coordinate
# C of body B (positions and velocities at both ends) in each step
# that holds a recorded event: the largest difference to /events/time
own_interp() {	# $1 file, $2 body, $3 coordinate 0..2
	cat <<PY
from scipy.optimize import brentq
f = h5py.File('$1', 'r')
t = series(f, 'time'); r = series(f, 'bodies/$2/position')[:, $3]
v = series(f, 'bodies/$2/velocity')[:, $3]
te = np.asarray(f['events/time'][:])
err = 0.0
for T in te:
    k = int(np.searchsorted(t, T)) - 1
    h = t[k + 1] - t[k]
    def p(s, k=k, h=h):
        u = (s - t[k]) / h
        return ((2*u**3 - 3*u**2 + 1) * r[k] + (u**3 - 2*u**2 + u) * h * v[k]
                + (-2*u**3 + 3*u**2) * r[k + 1] + (u**3 - u**2) * h * v[k + 1]) - OFFSET
    err = max(err, abs(brentq(p, t[k], t[k + 1], xtol=1e-15, rtol=1e-15) - T))
PY
}

# 1. the falling ball
for deck in ball ball_slider; do
	for s in hi lms2 rn4 dopri5; do
		out=$tmp/$deck-$s.h5
		expect_rc 0 "$deck $s: a stop event ends the run with exit 0" \
			"$MBSIM" run "$ev/$deck.yaml" --set integrator.method=$s -o "$out"
		grep -q "^mbsim: stopped: event low at t = " "$tmp/err" &&
			grep -q "^mbsim: stopped: $s, " "$tmp/err" &&
			ok "$deck $s: the summary says stopped" ||
			bad "$deck $s: the summary says stopped"
		# sqrt(2 (h0 - h1) / g), h0 = 2, h1 = 0.5, g = 9.81 (closed form)
		if [ $s = hi ]; then
			pycheck "$deck $s: the event is the root of hi's own interpolant" "
$(own_interp "$out" ball 2 | sed 's/OFFSET/0.5/')
te0 = np.sqrt(2 * 1.5 / 9.81)
ok = len(te) == 1 and err <= 1e-11 and abs(te[0] - te0) <= 1e-3
msg = 'events %s, interpolant %.3g, closed form %.3g' % (te, err, te[0] - te0)"
		else
			pycheck "$deck $s: the event at the closed form's time to 1e-9 s" "
f = h5py.File('$out', 'r')
te = f['events/time'][:]; t = series(f, 'time')
te0 = np.sqrt(2 * 1.5 / 9.81)
st = f.attrs['status']; st = st.decode() if isinstance(st, bytes) else st
nm = f['events/name'][0]; nm = nm.decode() if isinstance(nm, bytes) else nm
ok = (len(te) == 1 and abs(te[0] - te0) <= 1e-9 and nm == 'low'
      and list(f['events/direction'][:]) == [-1]
      and st.startswith('stopped: event low at t = 0.5530012636')
      and t[-2] < te[0] <= t[-1] and t[-1] - t[-2] <= 1e-3 * (1 + 1e-9))
msg = 'events %s (%s), status %s, last samples %s' % (te, te - te0, st, t[-2:])"
		fi
	done
done
"$MBSIM" run "$ev/ball.yaml" --json -o "$tmp/j.h5" >"$tmp/out" 2>"$tmp/err"
json_check "JSON: status stopped, message names the event" \
	"j['status'] == 'stopped' and j['message'].startswith('event low at t = 0.55')"

# 2. the oscillator's 100 crossings
out=$tmp/osc-rn4.h5
expect_rc 0 "oscillator rn4: runs" "$MBSIM" run "$ev/oscillator.yaml" \
	--set integrator.method=rn4 --set output.every=1 -o "$out"
pycheck "oscillator rn4: 100 crossings at (k + 1/2) pi / 2 to 1e-9 s, alternating" "
f = h5py.File('$out', 'r')
te = f['events/time'][:]; d = list(f['events/direction'][:])
st = f.attrs['status']; st = st.decode() if isinstance(st, bytes) else st
k = np.arange(len(te))
e = np.max(np.abs(te - (k + 0.5) * np.pi / 2)) if len(te) == 100 else np.inf
ok = len(te) == 100 and e <= 1e-9 and d == [-1, 1] * 50 and st == 'complete'
msg = '%d events, error %.3g, status %s' % (len(te), e, st)"
pycheck "oscillator rn4: each crossing is its interpolant's root to 1e-11 s" "
$(own_interp "$out" m 0 | sed 's/OFFSET/0.0/')
ok = len(te) == 100 and err <= 1e-11
msg = '%d events, %.3g' % (len(te), err)"
out=$tmp/osc-lms2.h5
expect_rc 0 "oscillator lms2: runs" "$MBSIM" run "$ev/oscillator.yaml" \
	--set integrator.method=lms2 --set output.every=1 -o "$out"
pycheck "oscillator lms2: 100 crossings, each its interpolant's root to 1e-11 s" "
$(own_interp "$out" m 0 | sed 's/OFFSET/0.0/')
# second order: its phase error, about omega^2 h^2 t / 12 = 5e-5 s, below 1e-3 s
k = np.arange(len(te))
ok = len(te) == 100 and err <= 1e-11 and np.max(np.abs(te - (k + 0.5) * np.pi / 2)) < 1e-3
msg = '%d events, %.3g' % (len(te), err)"

# 3. usage errors at FILE:LINE:COL
deck=$ev/ball.yaml
expect_rc 2 "an unknown body in a condition: exit 2" "$MBSIM" run "$deck" \
	--set "events.0.condition=z.bal - h1" -o "$tmp/u.h5"
grep -q "unknown body or point 'bal'.*did you mean 'z.ball'" "$tmp/err" &&
	ok "... named with a suggestion" || bad "... named with a suggestion"
expect_rc 2 "a bad direction: exit 2" "$MBSIM" run "$deck" --set events.0.direction=down \
	-o "$tmp/u.h5"
grep -q "unknown direction 'down'" "$tmp/err" && ok "... named" || bad "... named"
expect_rc 2 "a bad action: exit 2" "$MBSIM" run "$deck" --set events.0.action=halt \
	-o "$tmp/u.h5"
grep -q "unknown action 'halt'" "$tmp/err" && ok "... named" || bad "... named"
printf 'time: {end: 1}\nbodies:\n  - {name: b, mass: 1, inertia: [1, 1, 1]}\nevents:\n  - {name: e}\n  - {name: f, condition: "z.b +"}\n' >"$tmp/bad.yaml"
expect_rc 2 "a missing condition and one that does not parse: exit 2" \
	"$MBSIM" run "$tmp/bad.yaml" -o "$tmp/u.h5"
grep -q "bad.yaml:5:5: error: missing required key 'condition' in event" "$tmp/err" &&
	grep -q "bad.yaml:6:27: error: bad expression 'z.b +'" "$tmp/err" &&
	ok "... both at FILE:LINE:COL" || bad "... both at FILE:LINE:COL"

finish
