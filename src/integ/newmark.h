/* newmark.h - the Newmark family of seed 002: the classical index-3 form
 * (`newmark`, stepped by the dae3 engine) and the growth detector that both
 * it and `tangent_newmark` use (newmark.c). */
#ifndef MBSIM_NEWMARK_H
#define MBSIM_NEWMARK_H

#include "integ.h"

/* Growth detector.  A Newmark scheme outside its stability region
 * amplifies a mode by a real factor below -1 per step (seed 002 eq. 25:
 * the amplification matrix, whose eigenvalues leave the unit circle at -1
 * when dt passes the eq. 11 bound, and at once for the constraint modes of
 * the index-3 form when beta < gamma/2, eq. 30, where Fox-Goodwin's factor
 * is 5 + sqrt(24) = 9.9).  Its signature: the acceleration change
 * z_n = g_{n+1} - g_n reverses direction at every step (z_n . M z_{n-1}
 * < 0) while its mass-weighted norm grows by at least NM_GROWTH_RATIO per
 * step.  Such a run of steps is declared instability when
 *   (i)  it is NM_GROWTH_STEPS steps long (total growth >= 1.1^12 = 3.1), or
 *   (ii) it is at least 3 steps long, |z| has grown NM_GROWTH_FACTOR-fold
 *        within it and is NM_GROWTH_FACTOR times the largest |z| of the
 *        NM_GROWTH_WINDOW steps before it began (a fast blow-up, caught
 *        before it stops the Newton iteration).
 * A mode of constant amplitude (sampled at any frequency, the stable side
 * of eq. 11 included, where it sits near the Nyquist frequency) can do
 * neither: its sampled |cos| rises by 10% per step for fewer than 12 steps
 * in a row, and never exceeds the amplitude that the window before saw;
 * a resolved motion's acceleration changes do not alternate.  The
 * weak instability of the index-3 trapezoidal rule (growth like n (-1)^n)
 * passes neither test.  Changes below 1e-9 times the largest
 * acceleration norm of the run are round-off and never count. */
#define NM_GROWTH_RATIO 1.1
#define NM_GROWTH_STEPS 12
#define NM_GROWTH_FACTOR 100.0
#define NM_GROWTH_WINDOW 100

struct nm_growth {
	double *g, *z;		/* last accelerations, last change (6 per body) */
	double *gnew, *znew, *share;	/* scratch: 6 per body, 6 per body, 1 per body */
	double zn, gmax;	/* |z|_M of the last change, largest |g|_M */
	double hist[NM_GROWTH_WINDOW];	/* |z|_M of the last changes (a ring) */
	int nhist, head;
	double before, first;	/* largest |z| before the run, |z| that began it */
	int have_g, have_z, run;	/* run: consecutive growing reversals */
	int body;		/* body of the largest share of |z|_M when tripped */
	int trip_run;		/* when tripped: length of the run ... */
	double trip_growth;	/* ... and the growth of |z| within it */
};

struct nm_growth *nm_growth_new(const struct ra *s);
void nm_growth_free(struct nm_growth **gr);
/* Record the accelerations of a completed state; 1 when the growth test
 * trips (gr->body names the body), else 0. */
int nm_growth_check(struct nm_growth *gr, const struct ra *s, const struct ra_state *y);

/* Classical newmark on the dae3 engine: beta and gamma from o. */
int newmark_init(struct integ *it, const struct sim_options *o);
int newmark_step(struct integ *it, double h, struct ra_state *x, struct ra_state *y);

#endif
