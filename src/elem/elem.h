/* elem.h - the force-element interface: one table of operations per
 * element type (elem.def), each type in its own file elem_NAME.c with its
 * own parameter struct (struct force.par).  The formulation (form/ra*.c:
 * forces, energies, Jacobians, element state), the deck builder
 * (deck/force.c), statics, linearization and output call elements only
 * through this table; the kinematics and evaluation helpers an element
 * uses are form/ra_force_impl.h's, its deck readers deck/force.h's.
 *
 * Conventions, as form/ra.h: out[0..5] on body b[0], out[6..11] on b[1]
 * (force global, torque body frame); i indexes s->m->forces; K, C are
 * 12 x 12 row-major (ra_force_lin).  Only build and eval are required;
 * a NULL operation means the element has none (no Jacobian blocks, no
 * analytic Jacobian, no potential energy, ...). */
#ifndef MBSIM_ELEM_H
#define MBSIM_ELEM_H

#include "../form/ra.h"

#include <stddef.h>

struct bctx;
struct fread;

/* What an element is, for the code that must know (elem_props). */
enum {
	ELEM_NC = 1u << 0,		/* may do nonconservative work (ra.has_ncforce) */
	ELEM_LAMBDA = 1u << 1,		/* reads the multipliers (friction): ra.needs_lambda;
					 * the tree formulation refuses it */
	ELEM_LOAD = 1u << 2,		/* an applied load, scaled by statics' load factor */
	ELEM_NO_POTENTIAL = 1u << 3,	/* a force at rest that ra_energy's potential
					 * does not hold (statics' descent check) */
	ELEM_OF_TIME = 1u << 4,		/* depends on time itself (ode_sys.autonomous) */
	ELEM_STATE_EXPR = 1u << 5,	/* ex is an expression of state (checked finite
					 * at t0, sim/check_t0.c) */
	ELEM_MOTOR_POWER = 1u << 6,	/* its power is the motors' part of ra_ncpower */
	ELEM_DISP = 1u << 7,		/* eval gives the six signed components o->disp
					 * (/forces/bushing_deflection) */
};

struct elem_ops {
	size_t par_size;	/* sizeof its parameter struct (elem_par) */
	/* From the deck: the item at fr->item (keys already checked against
	 * deck/keys.c's rows for the type) into fr->f, errors reported at
	 * FILE:LINE:COL with fr->bad set (deck/force.h). */
	void (*build)(struct bctx *b, struct fread *fr);
	unsigned (*props)(const struct force *f);
	/* The bodies out[0..5], out[6..11] act on; NULL: f->body. */
	void (*bodies)(const struct model *m, const struct force *f, int b[2]);
	/* Its generalized forces at x, and o (never NULL, zeroed, effort and
	 * disp NaN) the output quantities except power (ra_elem_eval). */
	void (*eval)(const struct ra *s, const struct ra_state *x, double t, const double *lam,
		     int i, double *out, struct ra_fout *o);
	/* W += its body-diagonal Newton blocks (ra_force_blocks). */
	void (*blocks)(const struct ra *s, const struct ra_state *x, double t, int i, double cq,
		       double cv, double *W);
	/* A rank-one part of the Newton matrix of an element that couples
	 * bodies or reads the multipliers (friction; form/ra_lowrank.c):
	 * U V^T with U = [q; 0] and V = [d q; w] in the unknowns (6 nb
	 * velocity-level, nc multipliers lam): -dF/du = (d / cv) q q^T,
	 * -dF/dlam = q w^T, and the band of q . u its law changes over
	 * (ra_lr_correct).  q (6 nb) and w (nc) zeroed before; returns 1 when
	 * it has one. */
	int (*lowrank)(const struct ra *s, const struct ra_state *x, int i, const double *lam,
		       double cv, double *q, double *w, double *d, double *band);
	/* Whether lin gives its analytic K, C (ra_force_lin; K, C zeroed
	 * before): 0, or -1 where it has none at x. */
	int (*has_lin)(const struct force *f);
	int (*lin)(const struct ra *s, const struct ra_state *x, double t, int i, double *K,
		   double *C);
	/* *V += its potential energy (ra_energy). */
	void (*energy)(const struct ra *s, const struct ra_state *x, int i, double *V);
	/* *P += the power of what its energy does not hold (ra_ncpower). */
	void (*ncpower)(struct ra *s, const struct ra_state *x, int i, double *P);
	/* Continuous state kept in s->fst + RA_FST i (ra.h): whether it has
	 * any, its start from f (st zeroed before), the commit at an accepted
	 * state x, and what a run started from the committed state keeps
	 * (ra_force_turns). */
	int (*has_state)(const struct force *f);
	void (*start)(const struct force *f, double *st);
	void (*commit)(struct ra *s, const struct ra_state *x, int i);
	void (*keep)(const double *st, struct force *f);
	/* The longest step not above h the element allows from x (adaptive
	 * schemes; ra_road_ahead); scan: its own memory, zeroed at first. */
	double (*step_limit)(const struct ra_state *x, const struct force *f, double h,
			     struct road_scan *scan);
	int (*looks_ahead)(const struct force *f);	/* whether step_limit limits */
	/* The units of its /forces/deflection, rate and effort (u[0..2]);
	 * NULL: none ("-", quantities 0 or NaN). */
	void (*units)(const struct model *m, const struct force *f, const char *u[3]);
	/* A length of the model the element sets (statics' scale), m. */
	double (*length)(const struct force *f);
	/* The limit its effort sits at at x (statics' refusal), else 0. */
	double (*saturated)(struct ra *s, const struct ra_state *x, double t, int i);
};

extern const struct elem_ops *const elem_types[FORCE_NTYPES];

static inline const struct elem_ops *elem_of(const struct force *f)
{
	return elem_types[f->type];
}

static inline unsigned elem_props(const struct force *f)
{
	return elem_of(f)->props(f);
}

/* f's parameter struct, made zeroed on the first call. */
void *elem_par(struct force *f);

/* The properties every element shares: an actuator function or an
 * expression makes it depend on time and have no potential; an
 * expression is one of state (the tire's road is not: its own props). */
unsigned elem_common_props(const struct force *f);

/* bodies operation of the elements that act in a joint: its bodies. */
void elem_joint_bodies(const struct model *m, const struct force *f, int b[2]);

/* Parameter structs that code outside their element's file fills (the
 * spectral command's oscillator, unit tests); the others are private. */
struct tsda_par {
	double k, c;	/* stiffness N/m, damping N s/m */
	double l0;	/* free length, m */
};

struct rsda_par {
	double k, c;	/* N m/rad, N m s/rad */
	double angle0;	/* free angle, rad */
	double turns0;	/* continuous: whole turns of its angle at t0 (0;
			 * run --from-static: the equilibrium's) */
	int wrapped;	/* deflection wrapped to [-pi, pi) (1) or continuous
			 * over turns (0) */
};

struct tire_par {
	double k, c;	/* normal stiffness N/m and damping N s/m */
	double radius;	/* m */
	double spacing;	/* road look-ahead sample spacing, m (0: none) */
	double tol;	/* look-ahead tolerance, m */
};

#endif
