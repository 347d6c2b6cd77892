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
 *   (ii) its last NM_GROWTH_FAST_STEPS steps each grew NM_GROWTH_FAST-fold
 *        or more (a fast blow-up, caught before it stops the Newton
 *        iteration),
 * and |z| is at least NM_GROWTH_ABOVE times the largest |z| of the run
 * before this growth began (so that the beat of two stable modes near the
 * Nyquist frequency, whose envelope rises from near zero again and again
 * but never above its earlier maxima, does not count once the run has
 * seen a beat).
 * A mode of constant amplitude, sampled at any frequency (the stable side
 * of eq. 11 included, where it sits near the Nyquist frequency), can do
 * neither: its sampled |cos| rises by 10% per step for fewer than 12 steps
 * in a row, and after passing near zero it rises at most like sin(k d):
 * by less than 2 at every step but the first (sin 2d / sin d = 2 cos d).
 * A step that fails (Newton, non-finite values) during a run of at least
 * 3 growing reversals that has risen above the earlier maximum is
 * reported as the instability too (nm_growth_suspect): the growth made
 * it fail.
 * A resolved motion's acceleration changes do not alternate, and the weak
 * instability of the index-3 trapezoidal rule (growth like n (-1)^n)
 * passes neither test.  tests/unit/test_newmark.c checks these claims
 * (false trips on stable modes: bench/README.md, "The growth detector").
 * Changes below 1e-9 times the largest acceleration norm of the run are
 * round-off and never count. */
#define NM_GROWTH_RATIO 1.1
#define NM_GROWTH_STEPS 12
#define NM_GROWTH_FAST 2.0
#define NM_GROWTH_FAST_STEPS 3
#define NM_GROWTH_ABOVE 2.0

struct nm_growth {
	double *g, *z;		/* last accelerations, last change (6 per body) */
	double *gnew, *znew, *share;	/* scratch: 6 per body, 6 per body, 1 per body */
	double zn, gmax;	/* |z|_M of the last change, largest |g|_M */
	double first;		/* |z| before the run began */
	double zmax, before;	/* largest |z| of the run; of it before the growth began */
	int have_g, have_z, run;	/* run: consecutive growing reversals */
	int fast;		/* consecutive ones that grew NM_GROWTH_FAST-fold */
	int body;		/* body of the largest share of |z|_M when tripped */
	int trip_run;		/* when tripped: length of the run ... */
	double trip_growth;	/* ... and the growth of |z| within it */
};

struct nm_growth *nm_growth_new(const struct ra *s);
/* Save or load its memory (restart, util/ckpt.h) */
struct ckpt;
void nm_growth_ckpt(struct nm_growth *gr, const struct ra *s, struct ckpt *c);
void nm_growth_free(struct nm_growth **gr);
/* Record the accelerations of a completed state; 1 when the growth test
 * trips (gr->body names the body), else 0. */
int nm_growth_check(struct nm_growth *gr, const struct ra *s, const struct ra_state *y);

/* After a failed step: 1 when the growth seen up to it (a run of at least
 * 3 growing reversals above the earlier maximum) explains the failure;
 * sets gr->trip_run, trip_growth and body as a trip does. */
int nm_growth_suspect(struct nm_growth *gr, const struct ra *s);

/* The growth test around a step of a Newmark scheme that returned st (y
 * its end state when st is INTEG_OK): INTEG_UNSTABLE, with gr->body,
 * when nm_growth_check trips or nm_growth_suspect explains a failure
 * (other than INTEG_STEP_TOO_SMALL); else st. */
int nm_growth_step(struct nm_growth *gr, const struct ra *s, int st, const struct ra_state *y);
/* The stable step of Newmark's scheme (beta, gamma) for the largest
 * natural frequency omega: 1 / (omega sqrt(gamma/2 - beta)) (seed 002
 * eq. 11), INFINITY when beta >= gamma/2 (stable at any step). */
double nm_hmax(double omega, double beta, double gamma);
/* The run's message for INTEG_UNSTABLE (0), or -1 for another st. */
int nm_growth_message(const struct nm_growth *gr, const struct model *m, int st, double t,
		      long step, double h, char *msg, size_t n);

#endif
