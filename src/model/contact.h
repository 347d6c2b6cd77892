/* contact.h - what the deck says about contact (issue 32): the contact
 * materials of bodies, the ground planes, and which contact model the run
 * uses.  Pure data; collision geometry and detection are src/contact/'s,
 * the forces the smooth model's element (elem/), the impulses the
 * nonsmooth time-stepper's.
 *
 * A body takes part in contact when the deck gives it a `contact:`
 * material; its `shape:` (model/shape.h) is then its collision geometry
 * too.  A plane belongs to the ground: the half-space below it (against
 * its normal) is solid. */
#ifndef MBSIM_MODEL_CONTACT_H
#define MBSIM_MODEL_CONTACT_H

#include "../util/diag.h"

enum contact_model {
	CONTACT_SMOOTH,		/* compliant normal force and friction (force element) */
	CONTACT_NONSMOOTH,	/* impulses, Moreau-Jean time-stepping */
	CONTACT_NMODELS
};

/* The normal force's damping of the smooth model (form/ra_contact.c):
 * chi = c(e) / v0 in F = K d^n (1 + chi d'), c of the form. */
enum contact_damping {
	CDAMP_HUNT_CROSSLEY,
	CDAMP_LANKARANI_NIKRAVESH,
	CDAMP_FLORES,
	CDAMP_EXACT,		/* c solved from the impact's exact restitution */
	CDAMP_NFORMS
};

extern const char *const contact_model_names[CONTACT_NMODELS];
extern const char *const contact_damping_names[CDAMP_NFORMS];

struct contact_mat {
	double mu_s, mu_d;	/* Coulomb friction, static >= dynamic >= 0 */
	double e;		/* coefficient of restitution, [0, 1] */
	double k;		/* stiffness of the side, N/m^exponent; 0: from E, nu */
	double E, nu;		/* Young's modulus Pa (> 0) and Poisson's ratio
				 * ([0, 0.5)) of a Hertz side; E = 0 when k is given */
	double exponent;	/* of the normal force k delta^exponent, > 0 */
	double stick_stiffness;	/* tangential spring of the stuck state, N/m; 0: from k */
	struct srcpos pos;	/* where the deck gives it */
	struct srcpos kpos;	/* its stiffness or youngs_modulus key */
};

struct contact_plane {
	double p[3], n[3];	/* a point on it and its unit normal, global */
	int has_mat;		/* 0: rigid, frictionless unless the body's material says */
	struct contact_mat mat;
	struct srcpos pos;
};

struct model_contact {
	enum contact_model model;
	enum contact_damping damping;
	int nb;			/* bodies bmat covers */
	int *bmat;		/* per body: index into mat, or -1 (no contact) */
	struct contact_mat *mat;	int nmat, matcap;
	struct contact_plane *planes;	int nplanes;
	/* the nonsmooth model's settings may join here */
};

/* The set, made as needed (zeroed, model smooth, damping flores); the
 * material slot of body b (made, copied into mat[]) by contact_body_mat. */
struct model_contact *contact_set(struct model_contact **mc);
struct contact_mat *contact_body_mat(struct model_contact **mc, int b);
/* The material of body b or NULL. */
const struct contact_mat *contact_mat_of(const struct model_contact *mc, int b);
/* The friction coefficients and restitution of the pair of sides a (a
 * body, or -1: the ground's plane `plane`) and b (a body): the smaller of
 * the two sides' (mbsim-deck(5), CONTACT), a side without a material
 * taking the other's (all 0 when neither has one). */
void contact_pair_coef(const struct model_contact *mc, int a, int plane, int b,
		       double *mu_s, double *mu_d, double *e);
void contact_set_free(struct model_contact **mc);

/* The restitution of one impact under F = K d^n (1 + c d'/v0) at
 * approach speed v0 without other forces: the e in (0, 1] with
 * -c e - ln(1 - c e) = c - ln(1 + c), whatever K, n and the mass
 * (mbsim-deck(5), CONTACT). */
double contact_restitution_of(double c);
/* c(e) of the damping form (c >= 0; e in [0, 1], e = 0 taken as 0.01
 * where the form is infinite there); for CDAMP_EXACT the inverse of
 * contact_restitution_of. */
double contact_damping_coef(enum contact_damping form, double e);

#endif
