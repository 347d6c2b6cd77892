/* balance.h - the energy balance of a run (sim.c): the work of the loads
 * without potential, split into motors, drivers and the rest, integrated
 * over every step, the energy scale of the run, and the test of whether
 * the balance contradicts itself (man/mbsim-run.1, ENERGY BALANCE). */
#ifndef MBSIM_BALANCE_H
#define MBSIM_BALANCE_H

#include <stddef.h>

struct balance {
	int started;		/* a first power sample was taken */
	double t_prev, P_prev[3];	/* last power sample: all, motors, drivers */
	double work[3];		/* their time integrals (trapezoid), J */
	double abs_work;	/* integral of |all|, J */
	int sampled;		/* a first energy sample was taken */
	double k0, kmax, vmin, vmax;	/* K at the first sample; over the samples, J */
	double mag;		/* largest K + |V| + G, the energies' own size, J */
};

/* The power at time t: P[0] of every load without potential, P[1] of the
 * motors, P[2] of the drivers (parts of P[0]), W. */
void balance_power(struct balance *b, double t, const double P[3]);
/* The work W (J) of impulses over a step (a nonsmooth scheme's contact
 * impacts and friction, integ.impulse_work), added to the loads' work
 * without potential. */
void balance_impulse(struct balance *b, double W);
/* Energies at a sample: kinetic K, potential V, and G = sum m |g| |r|
 * (the size of the gravity terms whose round-off V carries). */
void balance_energy(struct balance *b, double K, double V, double G);
/* max K + (max V - min V) + integral |P| dt: what the bodies held or
 * exchanged with the loads, J */
double balance_scale(const struct balance *b);
/* 1e-9 of the energies' size: a drift below it is round-off */
double balance_floor(const struct balance *b);
/* The largest drift a run that is right can show, max K + (max V - min
 * V) + int |P| dt / 10 + balance_floor (see balance.c). */
double balance_bound(const struct balance *b);
/* 1 and a warning in msg when the largest drift dmax passes the bound. */
int balance_check(const struct balance *b, double dmax, char *msg, size_t n);

#endif
