/* naming.c - the run's words for what went wrong: constraint rows by
 * name, and the message of a failed step (the family's own through
 * integ_fail, else the shared one from the step's failure detail). */
#include "sim_impl.h"
#include "../elem/elem.h"

#include <stdio.h>

/* The element that reads the multipliers (friction) acting on body b,
 * or -1: a stall there is most likely its law's (matrix.md finding 4),
 * which the constraint residual alone does not show. */
static int lambda_force_on(const struct model *m, int b)
{
	for (int i = 0; i < m->nforces; i++) {
		const struct force *f = &m->forces[i];
		if (!(elem_props(f) & ELEM_LAMBDA) || f->joint < 0)
			continue;
		const struct joint *j = &m->joints[f->joint];
		if (j->body[0] == b || j->body[1] == b)
			return i;
	}
	return -1;
}

void sim_cpl_fault_message(const struct ra *s, double t, long step, double h, char *msg,
			   size_t n)
{
	const struct joint *j = &s->m->joints[s->cpl_fault];
	snprintf(msg, n,
		 "%s '%s': joint '%s' turned by up to %.3g rad in the step that ended at t = %.9g "
		 "(step %ld, h = %g); a coupling follows a turn only while a step turns it by "
		 "less than pi/2: reduce integrator.step (or integrator.max_step)",
		 joint_type_names[j->type], j->name, s->m->joints[j->cpl->joint[s->cpl_term]].name,
		 s->cpl_turn, t, step, h);
}

/* The message of a step that ended in status st at t (step `step`, h). */
void sim_fail_message(const struct integ *it, int st, double t, long step, double h, char *msg,
		      size_t n)
{
	if (integ_fail(it, st, t, step, h, msg, n) == 0)
		return;	/* the family's own word */
	char what[256];
	const struct model *m = it->sys->m;
	model_row_name(m, it->bad_row, what, sizeof what);
	switch (st) {
	case INTEG_SINGULAR:
		snprintf(msg, n,
			 "iteration matrix singular at t = %.9g (step %ld, h = %g) near %s: "
			 "redundant or degenerate constraints; remove the redundant joint rows "
			 "or change the geometry", t, step, h, what);
		break;
	case INTEG_STEP_TOO_SMALL:
		snprintf(msg, n,
			 "step control failed at t = %.9g (step %ld, tried from h = %g): the error "
			 "estimate kept rejecting until the step fell below 1e-12 (%ld rejections "
			 "in the run); loosen integrator.atol/rtol or check the model",
			 t, step, h, it->rejected);
		break;
	case INTEG_NONFINITE:
		snprintf(msg, n,
			 "non-finite values at t = %.9g (step %ld, h = %g), largest residual in %s: "
			 "the step is too large for this model; reduce integrator.step", t, step, h, what);
		break;
	default: {
		/* the equations of motion's residual too: a constraint residual
		 * at round-off alone does not make a converged step */
		char eom[400] = "", fr[300] = "";
		if (it->eom_body >= 0) {
			int fi = lambda_force_on(m, it->eom_body);
			if (fi >= 0)
				snprintf(fr, sizeof fr, ", where friction '%s' in joint '%s' acts (its "
					 "law may be what stalls: raise its velocity_threshold or "
					 "reduce integrator.step)", m->forces[fi].name,
					 m->joints[m->forces[fi].joint].name);
			snprintf(eom, sizeof eom, "; largest equation-of-motion residual %.3g on body "
				 "'%s'%s", it->eom_value, m->bodies[it->eom_body].name, fr);
		}
		snprintf(msg, n,
			 "Newton did not converge at t = %.9g (step %ld, h = %g) in %d iterations "
			 "(last correction %.3g > tolerance %g; largest constraint residual %.3g in "
			 "%s%s); reduce integrator.step, raise integrator.max_iterations or loosen "
			 "integrator.tolerance", t, step, h, it->iters, it->last_norm,
			 it->tol, it->bad_value, what, eom);
	}
	}
}
