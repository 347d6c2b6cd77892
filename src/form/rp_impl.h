/* rp_impl.h - the state of the Euler-parameter formulation (rp.c), shared
 * with its analytic Jacobians (rp_jac.c); not for other modules. */
#ifndef MBSIM_RP_IMPL_H
#define MBSIM_RP_IMPL_H

#include "rp.h"
#include "../la/kkt.h"

#include <string.h>

#include <klu.h>

struct rp {
	struct ra *s;		/* borrowed */
	struct kkt *k;		/* borrowed: the run's saddle-point solver */
	struct ode_sys ode;
	double tol;
	int maxit;
	int nb, nc, nq, m;	/* bodies, model rows, coordinates, rows with normalizations */
	int *qo;		/* nb: first coordinate of body b in q */
	int *erow;		/* nb: row of body b's normalization, or -1 (particle) */
	int *ebody;		/* m - nc: the body of normalization row nc + i */
	double *q, *qd, *qdd;	/* nq: the current configuration */
	struct ra_state x;	/* its body state */
	double *W, *F, *g;	/* scratch of ra_accel */
	/* Phi_q at the current positions, by rows: model row k's values
	 * d/d(r, e) of body bi[k] at V[14 k .. 14 k + 6], of bj[k] at
	 * V[14 k + 7 ..]; body b's normalization row's d/de at V[14 nc + 4 b
	 * ..]; nu (m) */
	double *V, *nu;
	double *P;		/* m x nq dense, column-major: for partitioning only */
	/* partition */
	int r, n;		/* kept rows = dependent coordinates; independent coordinates */
	int *rows, *dep, *ind;	/* r, r, n */
	int *rowpos;		/* m: position of a row among rows, or -1 */
	int *colpos;		/* nq: dep position (>= 0) or -1 - ind position */
	int *dropped, ndropped;	/* rows left out (redundant) */
	/* Phi_u in compressed columns (KLU), values V[usrc[e]]; Phi_v by
	 * kept rows: entries vptr[i] .. vptr[i+1] - 1 at column vcol, V[vsrc] */
	int *Ap, *Ai, *usrc, *vptr, *vcol, *vsrc, *iwork;
	double *Ax;
	/* restart (rp_ckpt): the values of Phi_u at which num's pivot order
	 * was chosen (klu_factor), and whether num is that factorization
	 * still (fresh) or a refactorization in its order at Ax since */
	double *Ax_fact;
	int fresh;
	int started;		/* rp_start has set up a partition */
	klu_common kc;
	klu_symbolic *sym;
	klu_numeric *num;
	double cond, cond0;	/* of Phi_u now (NAN: not yet estimated) and at the partition */
	double gain0;		/* gain_u at the partition */
	int factored;		/* num is the factorization of Phi_u at q */
	long repart;
	double *res, *du, *E;	/* scratch: m, m + nq, m x nq */
	int *rp_, *cp_;		/* scratch of the pivoted QR: m, nq */
	double *tau, *qwork;	/* its scalar factors (m + nq) and workspace */
	int nwork;
	/* the positions of the last f call (rp_rhs) */
	int pos_ok;
	double pos_t, *pos_y;
	double *q_good;		/* q of the last f call that succeeded */
	/* q of the last accepted state (start, accept, renew): every
	 * position solve starts there, so that f is a function of (t, y)
	 * and not of the trial points evaluated before it */
	double *q_acc;
	int *scr_ids, *scr_old;	/* scratch, nq each */
	unsigned char *scr_dep;
	double *plog;		/* per partition: time, then the n independent coordinates */
	int nlog, caplog;
	char why[600];
	/* analytic Jacobians (rp_jac) */
	int lin_ok;		/* every force element has one, no particles */
	struct rp_lin *lin;
	int last_ok;		/* the last f call succeeded at pos_t, pos_y and last_yd */
	double *last_yd;
};

/* G(e) of seed 001 (Haug): w' = 2 G e-dot, 3 x 4 row-major. */
static inline void gmat(const double *e, double G[12])
{
	double e0 = e[0], e1 = e[1], e2 = e[2], e3 = e[3];
	double g[12] = { -e1, e0, e3, -e2, -e2, -e3, e0, e1, -e3, e2, -e1, e0 };
	memcpy(G, g, sizeof g);
}

static inline int rigid(const struct rp *p, int b)
{
	return p->erow[b] >= 0;
}

/* rp_jac.c: ode_sys.jac (seed 001 §3); whether the model allows it (no
 * particles, every force element with an analytic Jacobian); its work
 * arrays freed. */
int rp_jac(void *ctx, double t, const double *y, const double *yd, double *J1, double *J2);
int rp_lin_ok(const struct rp *p);
void rp_lin_free(struct rp_lin **pl);

#endif
