/* dae3.c - the index-3 residual engine of seed 004 on the ra formulation.
 *
 * Coordinates of a step.  Rotations are handled as in 004 §3.1: each step
 * works in the chart of the last accepted orientation A_{n-1}; a body's
 * state is y = (r, psi, v, w) with A = A_{n-1} exp(psi~), and its
 * derivative y' = (v, Jr(psi)^-1 w, a, w-dot) (w body frame, Jr the right
 * Jacobian of exp).  Older states are brought into the chart by
 * psi_j = log(A_{n-1}^T A_j).  (004 uses Cayley-Gibbs-Rodrigues parameters;
 * the rotation vector serves the same purpose here.)
 *
 * The engine in four files: here its set-up, the chart, the history and
 * the linear-analysis access; the implicit solve and its Newton matrix
 * in dae3_solve.c; the schemes and their predictors in dae3_step.c; the
 * step control in dae3_ctrl.c; its state shared through dae3_impl.h.
 */
#include "dae3_impl.h"
#include "../util/ckpt.h"
#include "newmark.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void dae3_fix_redundant(struct integ *it, const int *rows, int n)
{
	struct dae3 *E = dae3_eng(it);
	if (E && E->kmu)
		kkt_fix_dropped(E->kmu, rows, n);
}

int dae3_singular_tol(struct integ *it, double tol)
{
	struct dae3 *E = dae3_eng(it);
	if (kkt_set_singular_tol(it->kkt, tol))
		return -1;
	if (E && E->kmu)
		kkt_set_singular_tol(E->kmu, tol);
	return 0;
}

struct dae3 *dae3_eng(const struct integ *it)
{
	return (struct dae3 *)it->mem;
}

int dae3_init(struct integ *it, const struct sim_options *o, struct diag *d)
{
	struct dae3 *E = xcalloc(1, sizeof(*E));
	const struct ra *s = it->sys;
	if (coef_make(it->info->name, o->rho_inf, o->alpha, &E->co)) {
		free(E);
		diag_error(d, NULL, "integrator '%s': its coefficients could not be made for "
			   "rho_inf = %g", it->info->name, o->rho_inf);
		return -1;
	}
	if (s->npair)	/* beams */
		E->Wc = xcalloc(36 * (size_t)s->npair, sizeof(double));
	if (E->co.kind == COEF_LMS) {
		char nm[8] = "ss2";
		nm[2] = (char)('0' + E->co.k);
		coef_make(nm, o->rho_inf, o->alpha, &E->ss);
	}
	E->adaptive = o->adaptive && it->info->adaptive;
	E->startup_ss = o->startup_ss;
	E->atol = o->atol;
	E->tol_deck = o->tolerance;
	E->rtol = o->rtol;
	E->safety = o->safety;
	E->facmin = o->facmin;
	E->facmax = o->facmax;
	E->nb = s->nb;
	E->ny = 12 * s->nb;
	size_t ny = (size_t)E->ny + 1, ng = (size_t)s->ng + 1, nc = (size_t)s->nc + 1;
	for (int j = 0; j < NH; j++) {
		ra_state_init(s, &E->hist[j]);
		E->Y[j] = xcalloc(ny, sizeof(double));
		E->Yd[j] = xcalloc(ny, sizeof(double));
	}
	for (int i = 0; i < COEF_MAXS; i++) {
		E->SY[i] = xcalloc(ny, sizeof(double));
		E->SYd[i] = xcalloc(ny, sizeof(double));
	}
	for (int k = 0; k < 3; k++) {
		E->V[k] = xcalloc(ny, sizeof(double complex));
		E->Vn[k] = xcalloc(ny, sizeof(double complex));
	}
	E->ap = xcalloc(ng, sizeof(double));
	E->apn = xcalloc(ng, sizeof(double));
	if (E->Wc) {
		E->gold = xcalloc(ng, sizeof(double));
		E->lold = xcalloc(nc, sizeof(double));
		E->told = NAN;
		E->gold2 = xcalloc(ng, sizeof(double));
		E->lold2 = xcalloc(nc, sizeof(double));
		E->told2 = NAN;
	}
	E->yhat = xcalloc(ny, sizeof(double));
	E->Ynew = xcalloc(ny, sizeof(double));
	E->Ydnew = xcalloc(ny, sizeof(double));
	E->est = xcalloc(ny, sizeof(double));
	E->g = xcalloc(ng, sizeof(double));
	E->ek = xcalloc(ng, sizeof(double));
	E->psi = xcalloc((size_t)3 * s->nb + 1, sizeof(double));
	E->lam = xcalloc(nc, sizeof(double));
	E->g0 = xcalloc(ng, sizeof(double));
	E->lam0 = xcalloc(nc, sizeof(double));
	E->lamf = xcalloc(nc, sizeof(double));
	if (it->info->id == INTEG_NEWMARK)
		E->Wgeo = xcalloc((size_t)18 * s->nb + 1, sizeof(double));
	if (E->Wc)
		E->Tinv = xcalloc((size_t)9 * s->nb + 1, sizeof(double));
	E->h_max = o->max_step > 0 ? o->max_step : o->t_end - o->t0;
	E->index = o->index == 2 ? 2 : 3;
	E->span = o->t_end - o->t0;
	ra_state_init(s, &E->ybig);
	ra_state_init(s, &E->ymid);
	E->Ybig = xcalloc(ny, sizeof(double));
	E->pm = xcalloc(ng, sizeof(double));
	for (int j = 0; j < NH; j++)
		E->PM[j] = xcalloc(ng, sizeof(double));
	if (E->index == 2) {
		E->mu = xcalloc(nc, sizeof(double));
		E->dmu = xcalloc(nc, sizeof(double));
		E->vres = xcalloc(nc, sizeof(double));
		E->u = xcalloc(ng, sizeof(double));
		E->xmu = xcalloc(ng, sizeof(double));
		E->Wid = xcalloc((size_t)18 * s->nb + 1, sizeof(double));
		for (int b = 0; b < s->nb; b++)
			for (int c = 0; c < 3; c++)
				E->Wid[18 * b + 4 * c] = E->Wid[18 * b + 9 + 4 * c] = 1.0;
		E->kmu = kkt_new(s->nb, s->nc, s->bi, s->bj, kkt_mode_of(it->kkt));
		kkt_set_rows(E->kmu, s->jo);
	}
	it->mem = E;
	return 0;
}

void dae3_free(struct integ *it)
{
	struct dae3 *E = dae3_eng(it);
	if (!E)
		return;
	nm_growth_free(&E->growth);
	free(E->Wc);
	for (int j = 0; j < NH; j++) {
		ra_state_release(&E->hist[j]);
		free(E->Y[j]);
		free(E->Yd[j]);
	}
	for (int i = 0; i < COEF_MAXS; i++) {
		free(E->SY[i]);
		free(E->SYd[i]);
	}
	for (int k = 0; k < 3; k++) {
		free(E->V[k]);
		free(E->Vn[k]);
	}
	free(E->ap);
	free(E->gold);
	free(E->lold);
	free(E->gold2);
	free(E->lold2);
	free(E->apn);
	free(E->Wgeo);
	free(E->Tinv);
	free(E->yhat);
	free(E->Ynew);
	free(E->Ydnew);
	free(E->est);
	free(E->g);
	free(E->ek);
	free(E->psi);
	free(E->lam);
	free(E->g0);
	free(E->lam0);
	free(E->lamf);
	free(E->pm);
	ra_state_release(&E->ybig);
	ra_state_release(&E->ymid);
	free(E->Ybig);
	for (int j = 0; j < NH; j++)
		free(E->PM[j]);
	free(E->mu);
	free(E->dmu);
	free(E->vres);
	free(E->u);
	free(E->xmu);
	free(E->Wid);
	kkt_free(&E->kmu);
	free(E);
	it->mem = NULL;
}

int dae3_stages(const struct integ *it)
{
	const struct dae3 *E = dae3_eng(it);
	return E->co.kind == COEF_DIRK ? E->co.s - 1 : 1;
}

/* y, y' of state x in the chart of orientations Aref; pm = Phi_q^T mu
 * of x (index 2: q' = (v, w) - pm; zero at index 3) */
void dae3_chart(const struct dae3 *E, const struct ra_state *x, const double *Aref,
		  double *Y, double *Yd, const double *pm)
{
	for (int b = 0; b < E->nb; b++) {
		double R[9], psi[3], Ji[9], *y = Y + 12 * b, *yd = Yd + 12 * b;
		m3_tmul(R, Aref + 9 * b, x->A + 9 * b);
		so3_log(psi, R);
		so3_jrinv(Ji, psi);
		v3_copy(y, x->r + 3 * b);
		v3_copy(y + 3, psi);
		v3_copy(y + 6, x->v + 3 * b);
		v3_copy(y + 9, x->w + 3 * b);
		double wq[3];
		for (int c = 0; c < 3; c++) {
			yd[c] = x->v[3 * b + c] - pm[6 * b + c];
			wq[c] = x->w[3 * b + c] - pm[6 * b + 3 + c];
		}
		m3_mulv(yd + 3, Ji, wq);
		v3_copy(yd + 6, x->a + 3 * b);
		v3_copy(yd + 9, x->wd + 3 * b);
	}
}

/* --- history ---------------------------------------------------------- */

void dae3_start(struct integ *it, struct dae3 *E, const struct ra_state *x)
{
	const struct ra *s = it->sys;
	ra_state_copy(s, &E->hist[0], x);
	E->nhist = 1;
	for (int j = 0; j < NH; j++)
		memset(E->PM[j], 0, (size_t)s->ng * sizeof(double));
	memset(E->pm, 0, (size_t)s->ng * sizeof(double));
	if (E->mu)
		memset(E->mu, 0, (size_t)s->nc * sizeof(double));
	dae3_chart(E, x, x->A, E->Y[0], E->Yd[0], E->PM[0]);
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < E->ny; i++)
			E->V[k][i] = E->Yd[0][i];
	integ_acc_get(s, x, E->ap);
	copy_lam(s, E->lamf, x->lam);
}

/* The auxiliary variables and the acceleration buffers of the step just
 * taken become the current ones, or (pop) the previous ones again: the
 * same exchange either way. */
static void swap_step_buffers(struct dae3 *E)
{
	if (E->aux)
		for (int k = 0; k < 3; k++) {
			double complex *t = E->V[k];
			E->V[k] = E->Vn[k];
			E->Vn[k] = t;
		}
	double *t = E->ap;
	E->ap = E->apn;
	E->apn = t;
}

void dae3_push(struct integ *it, struct dae3 *E, const struct ra_state *y)
{
	struct ra_state last = E->hist[NH - 1];
	double *lpm = E->PM[NH - 1];
	for (int j = NH - 1; j > 0; j--) {
		E->hist[j] = E->hist[j - 1];
		E->hstep[j] = E->hstep[j - 1];
		E->PM[j] = E->PM[j - 1];
	}
	E->hist[0] = last;
	E->PM[0] = lpm;
	memcpy(lpm, E->pm, (size_t)it->sys->ng * sizeof(double));
	ra_state_copy(it->sys, &E->hist[0], y);
	E->hstep[0] = y->t - E->hist[1].t;
	if (E->nhist < NH)
		E->nhist++;
	swap_step_buffers(E);
	copy_lam(it->sys, E->lamf, y->lam);
}

/* Undo push (the doubled step's midpoint): hist[0] is the state before
 * it again; the oldest stored state is lost (only multistep schemes use
 * it, and they never double). */
void dae3_pop(struct integ *it, struct dae3 *E)
{
	struct ra_state first = E->hist[0];
	double *fpm = E->PM[0];
	for (int j = 0; j < NH - 1; j++) {
		E->hist[j] = E->hist[j + 1];
		E->hstep[j] = E->hstep[j + 1];
		E->PM[j] = E->PM[j + 1];
	}
	E->hist[NH - 1] = first;
	E->PM[NH - 1] = fpm;
	E->nhist--;
	swap_step_buffers(E);
	copy_lam(it->sys, E->lamf, E->hist[0].lam);
}

/* --- linear analysis -------------------------------------------------- */

static int nstore(const struct dae3 *E)
{
	return E->co.kind == COEF_LMS ? E->co.k : 1;
}

static int naux(const struct dae3 *E)
{
	if (E->co.kind == COEF_SS)
		return E->co.r - 1;
	return 0;
}

int dae3_slots(struct integ *it)
{
	const struct dae3 *E = dae3_eng(it);
	return 3 * nstore(E) + 4 * naux(E) + (E->co.kind == COEF_NEWMARK ? 1 : 0);
}

/* Slots in the units of positions: velocities times dt, accelerations
 * times dt^2 (keeps the columns of the amplification matrix of one size). */
static void slots_io(struct integ *it, int comp, double dt, double *v, int set)
{
	struct dae3 *E = dae3_eng(it);
	int n = 0;
	double sc[3] = { 1.0, dt, dt * dt };
	for (int j = 0; j < nstore(E); j++) {
		double *p[3] = { &E->hist[j].r[comp], &E->hist[j].v[comp], &E->hist[j].a[comp] };
		for (int q = 0; q < 3; q++, n++)
			if (set)
				*p[q] = v[n] / sc[q];
			else
				v[n] = *p[q] * sc[q];
	}
	for (int k = 0; k < naux(E); k++)
		for (int part = 0; part < 2; part++) {
			double complex *z = &E->V[k][part ? 6 + comp : comp];
			double f = sc[1 + part];
			if (set) {
				*z = (v[n] + I * v[n + 1]) / f;
			} else {
				v[n] = creal(*z) * f;
				v[n + 1] = cimag(*z) * f;
			}
			n += 2;
		}
	if (E->co.kind == COEF_NEWMARK) {
		if (set)
			E->ap[comp] = v[n] / sc[2];
		else
			v[n] = E->ap[comp] * sc[2];
	}
}

void dae3_get(struct integ *it, int comp, double dt, double *v)
{
	slots_io(it, comp, dt, v, 0);
}

void dae3_set(struct integ *it, int comp, double dt, const double *v)
{
	slots_io(it, comp, dt, (double *)v, 1);
}

void dae3_prime(struct integ *it, const struct ra_state *x, double h)
{
	struct dae3 *E = dae3_eng(it);
	dae3_start(it, E, x);
	for (int j = 1; j < NH; j++) {
		ra_state_copy(it->sys, &E->hist[j], x);
		E->hist[j].t = x->t - j * h;
	}
	for (int j = 0; j < NH; j++)
		E->hstep[j] = h;
	E->nhist = NH;
}

const struct ra_state *dae3_last(const struct integ *it)
{
	return &dae3_eng(it)->hist[0];
}

/* Restart: the accepted states and their charts, the auxiliary variables
 * of SS, generalized-alpha's pseudo-accelerations, the last step's start
 * (beams, newmark), the multipliers of friction, index 2's mu and the
 * step control's state.  A Newton matrix kept over steps (beams) is not
 * saved: the first solve after a restart makes a new one (not bit for
 * bit, within the Newton tolerance). */
void dae3_ckpt(struct integ *it, struct ckpt *c)
{
	struct dae3 *E = dae3_eng(it);
	const struct ra *s = it->sys;
	long ny = E->ny, ng = s->ng, nc = s->nc;
	ckpt_i(c, &E->nhist, 1);
	ckpt_d(c, E->hstep, NH);
	for (int j = 0; j < NH; j++) {
		ra_state_ckpt(s, &E->hist[j], c);
		ckpt_d(c, E->Y[j], ny);
		ckpt_d(c, E->Yd[j], ny);
		ckpt_d(c, E->PM[j], ng);
	}
	for (int k = 0; k < 3; k++)
		ckpt_d(c, (double *)E->V[k], 2 * ny);
	ckpt_i(c, &E->aux, 1);
	ckpt_i(c, &E->trap_only, 1);
	ckpt_d(c, E->ap, ng);
	ckpt_d(c, E->lamf, nc);
	ckpt_d(c, E->pm, ng);
	ckpt_d(c, &E->h_max, 1);
	if (E->gold) {
		ckpt_d(c, E->gold, ng);
		ckpt_d(c, E->lold, nc);
		ckpt_d(c, &E->told, 1);
	}
	if (E->mu)
		ckpt_d(c, E->mu, nc);
	if (E->growth)
		nm_growth_ckpt(E->growth, s, c);
	if (c->load)
		E->fserial = 0;	/* no kept Newton matrix */
}

const struct integ_ops dae3_ops = {
	.init = dae3_init,
	.step = dae3_step,
	.fix_redundant = dae3_fix_redundant,
	.singular_tol = dae3_singular_tol,
	.iter_unit = "Newton it",
	.beams = 1,
	.ckpt = dae3_ckpt,
	.free = dae3_free,
};
