/* rp.h - the Euler-parameter formulation "rp" with generalized coordinate
 * partitioning (seed 001 §1, eqs. 1-10), offered as an ODE (ode.h).
 *
 * Coordinates q: per rigid body its centroid r (3) and Euler parameters
 * e = (e0, e1, e2, e3) (4), per particle r (3); constraints: the joint and
 * driver rows of the model (the primitives of model/prim.h, evaluated on
 * (r, A(e)) through ra) and e^T e - 1 = 0 per rigid body.  Their Jacobian
 * in q follows from the one in (r, theta) of ra: d Phi / d e =
 * 2 (d Phi / d theta) G(e), G the body-frame matrix with w = 2 G(e) e-dot.
 *
 * Partitioning (eqs. 4-6): the seed picks the dependent coordinates by LU
 * with complete pivoting of Phi_q.  Here a column-pivoted QR (LAPACK
 * dgeqp3) of Phi_q^T picks the r rows kept (a pivot below RP_RANK_TOL
 * times the largest: the rest are redundant, dropped and named), and one
 * of those rows of Phi_q picks r columns, the dependent coordinates u; the
 * other n = nq - r columns are the independent coordinates v, the state of
 * the ODE.  QR's pivots measure a whole column's distance from the span of
 * those chosen, where complete pivoting looks at single entries, and the
 * same factorization reveals the rank (redundant rows) too.  Later
 * partitions keep the rank r of the first (near a singular position the
 * largest pivots still give the best-conditioned Phi_u).
 *
 * f(t, v, v-dot): u from Phi(u, v) = 0 by Newton (eq. 8; the stop test is
 * integrator.tolerance on |du|), u-dot from Phi_u u-dot = nu - Phi_v v-dot
 * (eq. 7d), then the accelerations.  The state-space ODE (9) is the index-1
 * system (eq. 3) solved for q-ddot with v-ddot read off it: the two have
 * the same solution, and the index-1 solve (ra_accel, the saddle-point
 * solver of the run) is sparse and already treats redundant rows.  In
 * (r, theta) it gives r-ddot and the body-frame w-dot, and
 * e-ddot = G^T w-dot / 2 - |w|^2 e / 4.
 *
 * Phi_u is sparse, factored by KLU (its pivot order reused while it holds).
 * The partition is kept while the condition number of Phi_u (KLU's 1-norm
 * estimate, the method of LAPACK's dgecon) stays within RP_COND_GROWTH
 * times its value at the last partitioning (Algorithm 1, step 14: 25 %)
 * and |Phi_u^-1| |Phi_q| within RP_GAIN_GROWTH; past that, and when a
 * step fails (renew), the coordinates are partitioned again at the accepted state and counted (rp_repartitions).
 */
#ifndef MBSIM_RP_H
#define MBSIM_RP_H

#include "ode.h"

#define RP_RANK_TOL 1e-9
#define RP_COND_GROWTH 1.25
/* ... and while |Phi_u^-1| |Phi_q| (gain_u in rp.c) stays within
 * RP_GAIN_GROWTH times its value there: the pivots relative to the whole
 * Jacobian, which the condition number of Phi_u does not see when Phi_u
 * is diagonal (free bodies' normalization rows).  At 4 a free body's
 * dependent Euler parameter is still at least a quarter of the largest. */
#define RP_GAIN_GROWTH 4.0
/* A new partition whose Phi_u is worse conditioned than this is a
 * singular position: the run fails there (the passages of the double
 * four-bar's singular positions that went well peaked at 1.6e4; one that
 * went wrong left rp at 9e8).  rp does not see every wrong passage: at a
 * singular position the dependent coordinates may move to another branch
 * of the constraint manifold (mbsim-run(1)). */
#define RP_COND_MAX 1e8

struct rp;
struct kkt;

/* On s, with the run's saddle-point solver k (both borrowed); tol, maxit:
 * the Newton stop on |du| and the iteration limit. */
struct rp *rp_new(struct ra *s, struct kkt *k, double tol, int maxit);
void rp_free(struct rp **p);
/* The ODE view of p (ode.h); valid while p lives. */
struct ode_sys *rp_ode(struct rp *p);

long rp_repartitions(const struct rp *p);
int rp_ncoords(const struct rp *p);	/* nq */
/* Independent coordinates now: n entries, each 7 b + k (k = 0..2 r,
 * 3..6 e0..e3) of rigid body b or 7 b + k (k = 0..2) of particle b, the
 * seed's numbering by body.  Returns n. */
int rp_independent(const struct rp *p, int *out);
/* The partitions of the run: count, and into log (when not NULL; room
 * for count x (1 + n) values) per partition its time and its n
 * independent coordinates numbered as rp_independent does. */
int rp_partition_log(const struct rp *p, double *log);

/* Redundant rows of the last partition (constraint rows of the model,
 * nc at most), their count. */
int rp_redundant(const struct rp *p, int *rows);

#endif
