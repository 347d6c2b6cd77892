/* ra_contact.h - the smooth contact model of the ra formulation
 * (ra_contact.c): contact forces, their energy, nonconservative power,
 * Newton blocks, friction state and step limit, each called where the
 * force elements' are (ra_force.c, ra_energy.c, ra_force_jac.c, sim/). */
#ifndef MBSIM_RA_CONTACT_H
#define MBSIM_RA_CONTACT_H

#include "ra.h"
#include "../contact/contact.h"

#include <stddef.h>

/* One contact at the last evaluation (ra_contact_out, /contacts). */
struct ra_contact_out {
	struct contact_pt c;
	double f[3];		/* force on side b (-f on a), global, N */
	double fn, ft[3];	/* its normal size and friction part */
	double elastic;		/* K d^n */
	double dd, v0;		/* penetration rate, approach speed at onset */
	double vt[3];		/* sliding velocity of b over a, global */
	double s[3];		/* stick spring to commit */
	double kn, cn, kt, ct;	/* tangent stiffness and damping, normal and tangential */
	int slip;		/* sliding (friction at its limit) */
};

/* Refuse (-1, errors in d at the materials' stiffness keys) a smooth
 * contact material whose impacts last less than 1e-9 s, or, for a fixed
 * step (adaptive 0), fewer steps than its restitution needs
 * (ra_contact_check.c). */
struct diag;
int ra_contact_check(const struct model *m, int adaptive, double step, struct diag *d);

/* NULL unless the model's contact is smooth and some body has a material. */
struct ra_contact *ra_contact_new(const struct model *m);
void ra_contact_free(struct ra_contact **C);

/* F (6 nb) += the contact forces at x. */
void ra_contact_forces(const struct ra *s, const struct ra_state *x, double *F);
/* The elastic energy of the normal forces at x. */
double ra_contact_energy(const struct ra *s, const struct ra_state *x);
/* The power of the contact forces but their elastic normal part. */
double ra_contact_ncpower(const struct ra *s, const struct ra_state *x);
/* W += the translational body-diagonal blocks cq K + cv C. */
void ra_contact_blocks(const struct ra *s, const struct ra_state *x, double cq, double cv,
		       double *W);
/* Keep the friction state of the accepted state x. */
void ra_contact_commit(struct ra *s, const struct ra_state *x);
/* The longest step not above h that does not step over a contact's onset. */
double ra_contact_step_limit(const struct ra *s, const struct ra_state *x, double h);
/* The contacts at x (valid until the next call). */
const struct ra_contact_out *ra_contact_out(const struct ra *s, const struct ra_state *x,
					    size_t *n);

#endif
