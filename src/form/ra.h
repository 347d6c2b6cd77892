/* ra.h - the absolute-coordinate formulation "ra" (000 §2).
 *
 * Coordinates per body: centroid r (global), rotation A (body -> global),
 * velocity v = r-dot (global), angular velocity w (body frame).  A
 * generalized vector (force, correction, acceleration) has 6 entries per
 * body: [0..2] translational (global), [3..5] rotational (body frame).
 * Equations of motion (000 eq. 2):
 *   M r-ddot + Phi_r^T lambda = f,   J w-dot + Pi^T lambda = n - w~ J w,
 *   Phi(r, A, t) = 0.
 */
#ifndef MBSIM_RA_H
#define MBSIM_RA_H

#include "../model/model.h"
#include "../model/prim.h"
#include "../model/sexpr.h"

struct ra_state {
	double t;
	double *r, *A, *v, *w;	/* 3n, 9n, 3n, 3n */
	double *a, *wd;		/* accelerations: 3n global, 3n body frame */
	double *lam;		/* nc multipliers */
};

/* The compiled system: sizes, mass data, and constraint work arrays. */
struct ra {
	const struct model *m;
	int nb, nc, ng;		/* bodies, constraint rows, 6 nb */
	double *mass;		/* nb */
	double *J, *Jinv;	/* 9 nb each (J: ra_inertia) */
	/* constraint evaluation (ra_eval): */
	double *phi, *nu, *gamma;	/* nc */
	/* d phi_k / d(r_i, th_i) at jac[jo[k] + 0..5], d phi_k / d(r_j,
	 * th_j) at jac[jo[k] + 6..11]; a row whose side i is ground keeps
	 * the second six only (jo[k] + 6 is where they start), 44 bytes a row
	 * less (kkt_set_rows reads the same layout) */
	double *jac;
	int *jo;		/* nc */
	int *bi, *bj;		/* nc: body of each row side (-1 ground) */
	/* the joints' rows' primitives, made once when the model has at
	 * most RA_PRIMS_MAX rows; NULL above, where they are made joint by
	 * joint at each evaluation (model_joint_prims: 104 bytes a row
	 * kept would be a fifth of a large model's memory) */
	struct prim *prims;
	int has_ncforce;	/* model has nonconservative loads or drivers */
	int needs_lambda;	/* a force depends on multipliers (friction) */
	/* state of force elements carried along a run (ra_force.c), RA_FST
	 * per force: last wrapped angle, whole turns, 1 once taken, and the
	 * integral of a motor's control error with the time and error of its
	 * last step; NULL when no element needs it */
	double *fst;
	/* 1 when the integrals of control errors are states of an ODE
	 * (form/ode_ctrl.c, the schemes of form/ode.h): ra_force_step then
	 * leaves them to it */
	int ctrl_ode;
	/* inputs of linearization (sim/linearize.c): an amount added to the
	 * magnitude of each force element (ra_input); NULL in a run */
	const double *uin;
	/* beams (ra_beam.c): the ordered pairs of bodies (row body, column
	 * body) whose dense 6x6 blocks the beam elements add to the
	 * iteration matrix, 9 per element (kkt_new_pairs); 0 and NULL
	 * without beams */
	int npair;
	int *pairs;
	/* coupling joints (model/coupler.h): JOINT_CPL_MAX a joint, the
	 * unwrapped angles of their rotation terms at the last accepted state
	 * (ra_cpl_commit), the branch their rows take; NULL without them */
	double *cref;
	/* their rates there and its time (NAN before the first commit); the
	 * first coupling joint (cpl_fault, -1: none) whose term cpl_term may
	 * have turned by more than RA_CPL_TURN in an accepted step, the bound
	 * max(|rate|) h of that turn in cpl_turn: its branch is not to be
	 * trusted and the run fails (sim.c) */
	double *crate, ct;
	int cpl_fault, cpl_term;
	double cpl_turn;
	/* the smooth contact model (ra_contact.h); NULL without it */
	struct ra_contact *contact;
	/* the rank-one Newton parts of friction (ra_lowrank.c); NULL
	 * without such elements */
	struct ra_lr *lr;
};

/* The most a coupled turn may move between two commits: pi/2, half the
 * pi within which a trial state's angle is taken on the branch of the
 * last commit, for the Newton iterates' excursions. */
#define RA_CPL_TURN (0.5 * M_PI)

#define RA_FST 8

/* Rows up to which ra keeps its primitives (ra.prims): 416 kB at most */
#define RA_PRIMS_MAX 4096

struct ra *ra_new(const struct model *m);

/* Centroidal inertia of body b (3x3, body frame).  A copy of the
 * model's: read from the body structs (248 bytes apart) the steps at
 * N = 1e5 took 3 % longer. */
static inline const double *ra_inertia(const struct ra *s, int b)
{
	return s->J + 9 * b;
}
void ra_free(struct ra **s);

void ra_state_init(const struct ra *s, struct ra_state *x);	/* allocate, zero */
void ra_state_release(struct ra_state *x);
void ra_state_copy(const struct ra *s, struct ra_state *dst, const struct ra_state *src);
/* Save or load x whole (util/ckpt.h) */
struct ckpt;
void ra_state_ckpt(const struct ra *s, struct ra_state *x, struct ckpt *c);
/* Initial state from the model (t0, r0, A0, v0, w0; a = wd = lam = 0). */
void ra_state_from_model(const struct ra *s, struct ra_state *x, double t0);

/* Evaluate constraint quantities (mask of PRIM_*) at x into s->phi, jac,
 * nu, gamma. */
void ra_eval(struct ra *s, const struct ra_state *x, double t, unsigned what);

/* W += scale d(Phi_q^T lam)/dq, the part local to one body (prim_hess):
 * per body the rotational block (body-frame theta, A <- A exp(theta~))
 * and a multiple of I on the translational block.  W: nb x 18 as in kkt.h.
 * Couplings between bodies and between r and theta are left out. */
void ra_geo(const struct ra *s, const struct ra_state *x, double t, const double *lam,
	    double scale, double *W);

/* y = Phi_q g (g generalized, y nc); y = Phi_q^T l (y generalized). */
void ra_jac_mul(const struct ra *s, const double *g, double *y);
/* y = Phi_q g as ra_jac_mul (the same sums in the same order) with g given
 * by its parts lin, ang (3 nb each: translational, rotational). */
void ra_jac_mul_split(const struct ra *s, const double *lin, const double *ang, double *y);
void ra_jac_tmul(const struct ra *s, const double *l, double *y);

/* Applied generalized forces at x, time t: gravity, elements, loads,
 * friction (from multipliers lam, may be NULL).  Rotational part is the
 * applied torque n in the body frame (without the gyroscopic term). */
void ra_forces(const struct ra *s, const struct ra_state *x, double t,
	       const double *lam, double *F);

/* Energies at x: kinetic and potential (gravity relative to r = 0, springs). */
void ra_energy(const struct ra *s, const struct ra_state *x, double *kin, double *pot);
/* Power of nonconservative loads (dampers, actuators, friction, loads,
 * motors, drivers through their multipliers x->lam) at x; part (or NULL)
 * receives the motors' share and the drivers'. */
double ra_ncpower(struct ra *s, const struct ra_state *x, double part[2]);

/* W (nb x 18, as in kkt.h) = diag(m I, J) per body. */
void ra_mass_blocks(const struct ra *s, double *W);
/* F_rot -= w x J w per body (F generalized, 6 per body). */
void ra_gyro(const struct ra *s, const struct ra_state *x, double *F);

/* The index-1 acceleration solve at x with the saddle-point solver k
 * (made for s): fills x->a, x->wd, x->lam.  Scratch W (18 nb), F, g
 * (6 nb).  Returns kkt_factor's code (0, or < 0: singular), or 1 when
 * forces that read the multipliers (friction) found none that agree with
 * them (ra_accel_solve). */
struct kkt;
int ra_accel(struct ra *s, struct kkt *k, double *W, double *F, double *g, struct ra_state *x);
/* The rank-one parts of the Newton matrix of the elements that have them
 * (friction: elem.h lowrank; ra_lowrank.c): made at x with the true
 * multipliers lam and the velocity coefficient cv (d u / d unknown) after
 * k was factored; returns 0, or -1 when a solve or the small LU fails.
 * ra_lr_correct turns a Newton correction y = K0^-1 r from k's factors
 * (dg: 6 nb, dl: nc, in place) into the one with K0 + U V^T, shortened
 * where it would carry a sliding velocity (velocities move by cv dg)
 * across zero past its law's band; returns the factor it was shortened
 * by (1: not; < 1: make the matrix anew and do not test convergence on
 * it).  Both do nothing without such elements (s->lr NULL). */
struct ra_lr *ra_lr_new(const struct ra *s);
void ra_lr_free(struct ra_lr **L);
int ra_lr_make(struct ra *s, struct kkt *k, const struct ra_state *x, const double *lam,
	       double cv);
double ra_lr_correct(const struct ra *s, const struct ra_state *y, double *dg, double *dl,
		     double cv);
/* ra_accel_solve's part with such elements (ra_lowrank.c). */
int ra_lr_accel(struct ra *s, struct kkt *k, double *F, double *g, struct ra_state *x);
/* Its two halves: the factorization at x's positions (Jacobian and gamma
 * evaluated), and the solve at x's velocities (s->gamma current). */
int ra_accel_factor(struct ra *s, struct kkt *k, double *W, const struct ra_state *x);
int ra_accel_solve(struct ra *s, struct kkt *k, double *F, double *g, struct ra_state *x);
/* The factorization with the Jacobian already in s (of x's positions). */
int ra_accel_factor_jac(struct ra *s, struct kkt *k, double *W);

/* Update of rotations on the manifold: A <- A exp(th~) per body, where th
 * is the rotational part of a generalized vector. */
void ra_rotate(const struct ra *s, double *A, const double *g);

/* Reaction of constraint rows [row0, row0 + n) on body side 1 (body j)
 * at x: force (global), couple about the marker point s1 (global).
 * Requires ra_eval(.., PRIM_JAC) at x. */
/* Effort of driver d at x, the one sign of run (/drivers/effort), static
 * and their JSON: the torque about (force along) the joint axis, marker
 * 0's z, that the driver's row applies to body 2, positive in the
 * direction that increases the joint coordinate (as a motor's effort);
 * F, C: that row's reaction on body 2 (ra_reaction).  Requires ra_eval(..,
 * PRIM_JAC) at x. */
double ra_driver_effort(const struct ra *s, const struct ra_state *x, int d, double F[3],
			double C[3]);
void ra_reaction(const struct ra *s, const struct ra_state *x, int row0, int n,
		 const double *s1, double F[3], double C[3]);

/* Body-diagonal blocks of the Jacobian of the force elements, added to the
 * iteration-matrix blocks W (nb x 18): cq K + cv C per body, each
 * element's blocks operation (elem/elem.h).  TSDA (without a state
 * expression): translational, K = k u u^T + (f / l)(I - u u^T), C =
 * c u u^T, exact for a TSDA attached at a centroid to ground; viscous:
 * C = c I.  Elements with a state expression, rsda, motor, bushing, tire:
 * translational and rotational 3x3 blocks of -dF/d(r, theta) and
 * -dF/d(v, w) of each body's own force by central differences
 * (ra_force_jac.c ra_fd_blocks, step cbrt(DBL_EPSILON) max(1, |value|)).
 * The coupling between the two bodies, between r and theta, and the terms
 * of offset attachment points are not included. */
void ra_force_blocks(const struct ra *s, const struct ra_state *x, double t,
		     double cq, double cv, double *W);

/* Full Jacobians of force element i at x (analytic integration
 * Jacobians, seed 001 §3): with out the element's 12 generalized forces
 * on bodies b[0], b[1] (6 each, as ra_forces adds them: force global,
 * torque body frame) and z = (r, theta) of b[0] then b[1], zdot = (v, w)
 * likewise (theta as in prim.h, w body frame), K = d out / d z and
 * C = d out / d zdot (12 x 12 row-major; columns of a ground side 0).
 * Both bodies, translation and rotation, couplings included.  Elements
 * (their lin operation, elem/elem.h): the TSDA and the RSDA (on a
 * revolute or cylindrical joint) without a state expression, the point
 * force and the torque on a body (not on a link) whose expression, if
 * any, names no state, the tire (its road's slope and curvature by
 * differences of the road expression) and the viscous element.  Returns
 * 0, or -1 (K, C zero) for any other element, which then has no analytic
 * Jacobian; ra_force_has_lin tells which. */
int ra_force_lin(const struct ra *s, const struct ra_state *x, double t, int i, int b[2],
		 double *K, double *C);
int ra_force_has_lin(const struct force *f);

/* Beams (ra_beam.c, model/beam.h).  ra_beam_init sets s->pairs (ra_new).
 * ra_beam_forces: F += the elements' internal forces on their nodes.
 * ra_beam_energy: their strain energy.  ra_beam_ncpower: the power of
 * their damping (<= 0).  ra_beam_blocks: Wc (36 per pair of s->pairs,
 * row-major) = cq K + cv C of each element, K = -dF/d(r, theta), C =
 * -dF/d(v, w) (v, w only with damping), by central differences of the
 * element's forces in each node's r and theta (A <- A exp(theta~)).
 * ra_beam_out: strains and resultants of element e (beam.h) into pt[2]. */
void ra_beam_init(struct ra *s);
void ra_beam_forces(const struct ra *s, const struct ra_state *x, double *F);
double ra_beam_energy(const struct ra *s, const struct ra_state *x);
double ra_beam_ncpower(const struct ra *s, const struct ra_state *x);
void ra_beam_blocks(const struct ra *s, const struct ra_state *x, double cq, double cv,
		    double *Wc);
struct beam;
struct beam_pt;
void ra_beam_out(const struct ra *s, const struct ra_state *x, const struct beam *bm, int e,
		 struct beam_pt *pt);

/* Set up s->fst (called by ra_new). */
void ra_force_init(struct ra *s);

/* What force element i does at x (for /forces): force and torque on its
 * second body (the loaded body of force and torque elements), global,
 * the torque about that body's attachment point; deflection and rate
 * (m or rad: TSDA length - free length, RSDA and motor the joint angle or
 * displacement, bushing |relative displacement|); power delivered to the
 * bodies, W; stored energy, J; the scalar effort. */
struct ra_fout {
	double force[3], torque[3];
	double deflection, rate, power, energy;
	double effort;	/* tsda tension, rsda moment on body 2 about the axis,
			 * motor torque (force) on body 2 about (along) the
			 * axis, friction force on body 2 along the axis; NaN
			 * for force, torque and bushing */
	double disp[6];	/* bushing: marker 1's displacement (m) and rotation
			 * vector (rad) in marker 0's axes, signed (> 0
			 * extension along the axis); NaN for the others */
};
void ra_force_out(const struct ra *s, const struct ra_state *x, double t, int i,
		  struct ra_fout *o);
/* Value of a state expression at x (measures). */
double ra_sexpr(const struct ra *s, const struct ra_state *x, double t, struct sexpr *e);
/* After a completed step to x of size h: advance the integral of the
 * motors' control errors (trapezoidal rule over the step; between steps
 * a motor's effort takes it to its own time the same way, ra_force.c);
 * nothing when s->ctrl_ode. */
void ra_force_step(struct ra *s, const struct ra_state *x, double h);
/* At the start and after each accepted step (or statics iterate) x: the
 * reference of the continuous rsda and motor angles (ra_force.c,
 * ra_rsda_def, motor_q). */
void ra_force_commit(struct ra *s, const struct ra_state *x);
/* The coupling joints' angle references from x (s->cref): their rows
 * follow an angle through turns as long as an accepted state turns it by
 * less than pi; trial states leave no trace.  ra_force_commit calls it.
 * A turn since the last commit whose bound (the larger of the two rates
 * times the time between) passes RA_CPL_TURN sets s->cpl_fault. */
void ra_cpl_commit(struct ra *s, const struct ra_state *x);
/* Their references at the last commit into m's joint_cpl.ref0, the start
 * of a run from that state (run --from-static), as ra_force_turns. */
void ra_cpl_keep(const struct ra *s, struct model *m);
/* The whole turns of each continuous rsda angle at the last commit into
 * m->forces[].turns0, the start of a run from that state. */
void ra_force_turns(const struct ra *s, struct model *m);
/* The integral states of the motors with integral action (control, ki >
 * 0), in force order: their count; their values out of s->fst into z, or
 * from z into it; their rates, the control errors e = target(t) - q (or
 * - q' with on: rate) at x, into e. */
int ra_ctrl_count(const struct model *m);
/* The index of the first such motor in m->forces, or -1. */
int ra_ctrl_first(const struct model *m);
void ra_ctrl_get(const struct ra *s, double *z);
void ra_ctrl_set(struct ra *s, const double *z);
void ra_ctrl_rates(struct ra *s, const struct ra_state *x, double t, double *e);

/* Whether element f limits the steps of adaptive schemes (a tire that
 * looks ahead along its road: elem_ops.looks_ahead). */
int ra_tire_looks_ahead(const struct force *f);

/* Road look-ahead of the tires (adaptive steps; mbsim-deck(5), tire
 * lookahead): the longest step not above h after which no tire with a
 * look-ahead has crossed into a feature of its road it was short of at x
 * (elem/elem_tire.c tire_ahead), h when none is near.  scan: one per force
 * element, zeroed before the first call, what each tire's last scan of
 * its road found (reused while the wheel stays on the line scanned). */
struct road_scan {
	int valid;
	double p0[2], u[2];	/* the line scanned: from p0 along u */
	double clear;		/* the road smooth (within tol of the parabola
				 * behind p0) up to p0 + clear u */
	int entry;		/* a feature starts there; 0: none found */
};
double ra_road_ahead(const struct model *md, const struct ra_state *x, double h,
		     struct road_scan *scan);

/* bstate views of body b (ground for b < 0). */
void ra_bstate(const struct ra_state *x, int b, struct bstate *bs);

#endif
