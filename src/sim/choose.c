/* choose.c - integrator.method: auto (issue 37, item 3): a scheme and
 * formulation from the model, by the first rule that applies
 * (mbsim-deck(5), INTEGRATOR):
 *
 *   1. the nonsmooth contact model          -> moreau (the one scheme of it)
 *   2. a body of mass 0 or singular inertia -> bdf on tree (the one that
 *                                              takes them)
 *   3. beams or the smooth contact model    -> lms2, adaptive (index 3 on
 *                                              ra: the beams' coupling
 *                                              blocks, penalty contact)
 *   4. a tree rooted at the ground (tree_check), no stiff spring
 *                                           -> dopri5 on tree, adaptive
 *   5. a tree with a stiff spring           -> bdf on tree, adaptive
 *   6. not a tree (loops, couplings, jointed particles, joints tree has
 *      no coordinates for), no stiff spring -> adams on rp, adaptive
 *   7. not a tree, a stiff spring           -> rn4 on rp, adaptive
 *
 * A spring is stiff when omega = sqrt(k / m) times integrator.step is
 * above 1: a mode faster than the step the deck asks to resolve, which
 * an explicit scheme would have to follow for stability alone.  k is a
 * tsda's or tyre's stiffness (m the least mass of its bodies) or an
 * rsda's (m the least diagonal inertia of its bodies).
 *
 * Why dopri5 before adams on a tree: fewer f evaluations at equal error
 * on the chains (bench/README.md, "dopri5 and integrator.method: auto"). */
#include "choose.h"
#include "../elem/elem.h"
#include "../model/contact.h"
#include "../form/tree.h"
#include "../util/diag.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* the least mass (rot: least diagonal inertia) of f's bodies */
static double least_inertia(const struct model *m, const struct force *f, int rot)
{
	double least = INFINITY;
	for (int e = 0; e < 2; e++) {
		int b = f->body[e];
		if (b < 0 || b >= m->nbodies)
			continue;
		const struct body *B = &m->bodies[b];
		double v = rot ? fmin(B->J[0], fmin(B->J[4], B->J[8])) : B->mass;
		if (v < least)
			least = v;
	}
	return least;
}

/* The fastest sqrt(k / m) of the springs (rad/s), its element in *who. */
static double fastest_spring(const struct model *m, const char **who)
{
	double fast = 0;
	*who = NULL;
	for (int i = 0; i < m->nforces; i++) {
		const struct force *f = &m->forces[i];
		double k;
		int rot = 0;
		switch (f->type) {
		case FORCE_TSDA:
			k = ((const struct tsda_par *)f->par)->k;
			break;
		case FORCE_TIRE:
			k = ((const struct tire_par *)f->par)->k;
			break;
		case FORCE_RSDA:
			k = ((const struct rsda_par *)f->par)->k;
			rot = 1;
			break;
		default:
			continue;
		}
		double w = sqrt(fabs(k) / least_inertia(m, f, rot));
		if (w > fast) {
			fast = w;
			*who = f->name;
		}
	}
	return fast;
}

static int singular_body(const struct model *m)
{
	for (int b = 0; b < m->nbodies; b++)
		if (!tree_body_regular(m, b))
			return 1;
	return 0;
}

static void pick(struct sim_options *o, const char *method, enum sim_formulation form,
		 int adaptive)
{
	snprintf(o->method, sizeof o->method, "%s", method);
	o->formulation = form;
	o->adaptive = adaptive;
}

int sim_choose_scheme(const struct model *m, struct sim_options *o, struct diag *d)
{
	if (!o->method_auto)
		return 0;
	if (o->formulation_pos.line) {
		diag_error(d, &o->formulation_pos, "integrator.method: auto chooses the "
			   "formulation too: leave out integrator.formulation, or name a scheme");
		return -1;
	}
	const struct model_contact *mc = m->contact;
	char *why = o->method_why;
	size_t n = sizeof o->method_why;
	if (mc && mc->model == CONTACT_NONSMOOTH) {
		pick(o, "moreau", FORM_AUTO, 0);
		snprintf(why, n, "the nonsmooth contact model");
		return 0;
	}
	if (singular_body(m)) {
		pick(o, "bdf", FORM_TREE, 1);
		snprintf(why, n, "a body of mass 0 or singular inertia");
		return 0;
	}
	if (m->nbeams > 0 || mc) {
		pick(o, "lms2", FORM_AUTO, 1);
		snprintf(why, n, "%s", m->nbeams > 0 ? "beams" : "the smooth contact model");
		return 0;
	}
	const char *who;
	double w = fastest_spring(m, &who);
	int stiff = w * o->step > 1;
	struct diag scratch;
	diag_init(&scratch);
	int tree = tree_check(m, &scratch) == 0;
	diag_release(&scratch);
	if (tree)
		pick(o, stiff ? "bdf" : "dopri5", FORM_TREE, 1);
	else
		pick(o, stiff ? "rn4" : "adams", FORM_RP, 1);
	int k = snprintf(why, n, "%s, ", tree ? "a tree rooted at the ground" :
			 "not a tree (closed loops, couplings or joints the tree formulation lacks)");
	if (who)
		snprintf(why + k, n - (size_t)k, "%s spring '%s' (sqrt(k/m) %.3g rad/s times "
			 "integrator.step %g s %s 1)", stiff ? "stiff" : "fastest", who, w, o->step,
			 stiff ? ">" : "<=");
	else
		snprintf(why + k, n - (size_t)k, "no springs");
	return 0;
}
