/* balance.c - the energy balance of a run (balance.h).
 *
 * The balance E(t) - E(t0) = W(t), E = K + V, W the work of the loads
 * without potential (dampers, actuators, friction, motors, drivers, ...),
 * holds for the exact solution; the run's drift, E - W - E(t0), is its
 * integration error.  What a run that is right can show:
 *  - a scheme's numerical dissipation removes energy the bodies hold: at
 *    most all of it, max K + (max V - min V) over the run;
 *  - its error in the work is a fraction of the work that passed, the
 *    integral of |P| dt; at a step that resolves the motion that fraction
 *    stays well below a tenth (the decks of decks/ at their settings:
 *    drift at most 0.92 % of the scale below, hmmwv14).
 * The bound is their sum, max K + (max V - min V) + int |P| dt / 10 (max K
 * no more than balance_kinetic allows), and
 * a drift beyond it means the work written is not the work the bodies
 * received (a control law evaluated differently from what the step used)
 * or energy from nowhere.  The bound is at least a tenth of the energy
 * scale, ten times the worst drift of the shipped decks.  Measured: a PID
 * pendulum whose integral state rn4 mishandled drifted by 2.5e3 J against
 * a bound of 255 J; a PID crank-rocker under rn4 and w2 by 41 and 55 J
 * against 17 and 13 J; the pendulum under lms2 by 4e-3 J against 4.8 J.
 * Below balance_floor the drift and the scale are round-off and nothing
 * is said. */
#include "balance.h"

#include <math.h>
#include <stdio.h>

void balance_power(struct balance *b, double t, const double P[3])
{
	if (b->started) {
		double dt = t - b->t_prev;
		for (int k = 0; k < 3; k++)
			b->work[k] += 0.5 * dt * (P[k] + b->P_prev[k]);
		b->abs_work += 0.5 * dt * (fabs(P[0]) + fabs(b->P_prev[0]));
	}
	for (int k = 0; k < 3; k++)
		b->P_prev[k] = P[k];
	b->t_prev = t;
	b->started = 1;
}

void balance_impulse(struct balance *b, double W)
{
	b->work[0] += W;
	b->abs_work += fabs(W);
}

void balance_energy(struct balance *b, double K, double V, double G)
{
	if (!b->sampled) {
		b->k0 = b->kmax = K;
		b->vmin = b->vmax = V;
	}
	b->sampled = 1;
	b->kmax = fmax(b->kmax, K);
	b->vmin = fmin(b->vmin, V);
	b->vmax = fmax(b->vmax, V);
	b->mag = fmax(b->mag, K + fabs(V) + G);
}

double balance_scale(const struct balance *b)
{
	return b->kmax + (b->vmax - b->vmin) + b->abs_work;
}

double balance_floor(const struct balance *b)
{
	return 1e-9 * (b->mag + b->abs_work);
}

/* The kinetic energy a run that is right can have held: at most what it
 * held, and at most its initial K plus what the potentials and the work
 * can have given it, K0 + (max V - min V) + int |P| dt.  The second
 * keeps a run whose kinetic energy grew from nowhere from excusing its
 * own drift (a contact of stiffness 1e30 threw a ball to 1e22 m/s: drift
 * 8.4e43 J against a bound that was max K, 8.4e43 J). */
static double balance_kinetic(const struct balance *b)
{
	return fmin(b->kmax, b->k0 + (b->vmax - b->vmin) + b->abs_work);
}

double balance_bound(const struct balance *b)
{
	return balance_kinetic(b) + (b->vmax - b->vmin) + 0.1 * b->abs_work + balance_floor(b);
}

int balance_check(const struct balance *b, double dmax, char *msg, size_t n)
{
	double B = balance_bound(b);
	if (!(dmax > B))
		return 0;
	snprintf(msg, n, "energy balance off by %.3g J, more than the scheme's dissipation and "
		 "error explain (bound %.3g J: max kinetic %.3g J + potential range %.3g J + a "
		 "tenth of the work exchanged, %.3g J): the result is not to be trusted; reduce "
		 "integrator.step or try another scheme", dmax, B, balance_kinetic(b), b->vmax - b->vmin,
		 0.1 * b->abs_work);
	return 1;
}
