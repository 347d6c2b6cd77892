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

/* The normal force's damping of the smooth model (elem_contact.c). */
enum contact_damping {
	CDAMP_HUNT_CROSSLEY,
	CDAMP_LANKARANI_NIKRAVESH,
	CDAMP_FLORES,
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

#endif
