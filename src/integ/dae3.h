/* dae3.h - the index-3 residual engine of the seed-004 schemes (dae3.c).
 *
 * One engine steps every scheme of seed 004 (LMS, SS, Bathe, MSSTC, MSSTH,
 * ESDIRK) and the Newmark family (HHT-alpha, generalized-alpha) on the ra
 * formulation.  Its history (past accepted states, the auxiliary variables
 * of SS_r, the pseudo-accelerations of generalized-alpha) is kept here; the
 * run loop only hands it the last accepted state.
 */
#ifndef MBSIM_DAE3_H
#define MBSIM_DAE3_H



struct integ;
struct sim_options;
struct ra_state;
struct diag;

/* The engine's operations (dae3_ops, registry.def), for the families
 * built on it (newmark.c) */
int dae3_init(struct integ *it, const struct sim_options *o, struct diag *d);
void dae3_free(struct integ *it);
/* Save or load its memory (restart, util/ckpt.h) */
struct ckpt;
void dae3_ckpt(struct integ *it, struct ckpt *c);
/* the second solver of integrator.index: 2 drops rows as it->kkt does */
void dae3_fix_redundant(struct integ *it, const int *rows, int n);
/* it->kkt's rank tolerance for the step, and the index-2 solver's */
int dae3_singular_tol(struct integ *it, double tol);
int dae3_step(struct integ *it, double h, struct ra_state *x, struct ra_state *y);
/* The last accepted state. */
const struct ra_state *dae3_last(const struct integ *it);

/* Linear analysis (mbsim spectral): the engine's history as real numbers.
 * A "slot" is one scalar of the history that belongs to coordinate `comp`
 * (0..5 of body 0: x y z, rotation x y z) in positions, velocities and
 * accelerations of every stored state and in the auxiliary variables.
 * dae3_slots returns how many there are (the same for every comp);
 * get/set read and write them
 * (velocities scaled by dt, accelerations by dt^2). */
int dae3_slots(struct integ *it);
void dae3_get(struct integ *it, int comp, double dt, double *v);
void dae3_set(struct integ *it, int comp, double dt, const double *v);
/* Fill the history as if the run had already taken enough constant steps h
 * from zero state x (so that dae3_step takes the scheme's own step). */
void dae3_prime(struct integ *it, const struct ra_state *x, double h);
/* Implicit stages per step (1 for multistep and Newmark, s - 1 for DIRK). */
int dae3_stages(const struct integ *it);

#endif
