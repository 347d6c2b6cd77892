/* tree.c - recursive joint coordinates on a tree rooted at the ground, as
 * an ODE (tree.h; seed 003 §3): the set-up (topology, the nodes in tree
 * order, drivers), the lifecycle and the accessors.  The state and its
 * frames are in tree_impl.h, the forward pass in tree_kin.c, the
 * recursion in tree_rec.c, the ODE entries in tree_ode.c.
 */
#include "tree_impl.h"
#include "../elem/elem.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <stdlib.h>
#include <string.h>

static const int tj_n[] = { 1, 2, 1, 2, 3, 0, 6, 3, 3 };

/* ---- topology ---- */

int tree_body_regular(const struct model *m, int b)
{
	const struct body *bd = &m->bodies[b];
	const double *J = bd->J;
	double det = J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
		     J[2] * (J[3] * J[7] - J[4] * J[6]);
	if (!(bd->mass > 0))
		return 0;
	if (bd->kind == BODY_PARTICLE)
		return 1;
	return J[0] > 0 && J[0] * J[4] - J[1] * J[3] > 0 && det > 0;
}

static int joint_ok(enum joint_type t)
{
	return t == JOINT_REVOLUTE || t == JOINT_CYLINDRICAL || t == JOINT_TRANSLATIONAL ||
	       t == JOINT_UNIVERSAL || t == JOINT_SPHERICAL || t == JOINT_FIXED ||
	       t == JOINT_PLANAR;
}

static int uf_find(int *up, int a)
{
	while (up[a] != a) {
		up[a] = up[up[a]];
		a = up[a];
	}
	return a;
}

int tree_check(const struct model *m, struct diag *d)
{
	int nb = m->nbodies, bad = 0;
	/* a particle without joints is a node of 3 coordinates, its
	 * position; one with a joint is not taken yet */
	for (int j = 0; j < m->njoints; j++) {
		const struct joint *jt = &m->joints[j];
		for (int k = 0; k < 2; k++)
			if (jt->body[k] >= 0 && m->bodies[jt->body[k]].kind == BODY_PARTICLE) {
				diag_error(d, &jt->pos, "joint '%s' joins particle '%s': the tree "
					   "formulation takes particles without joints only (3 "
					   "coordinates, the position; integrator.formulation: rp "
					   "takes jointed particles)", jt->name,
					   m->bodies[jt->body[k]].name);
				bad = 1;
				break;
			}
	}
	int *up = xmalloc(((size_t)nb + 1) * sizeof(int));
	for (int b = 0; b <= nb; b++)
		up[b] = b;
	for (int j = 0; j < m->njoints; j++) {
		const struct joint *jt = &m->joints[j];
		if (!joint_ok(jt->type)) {
			/* a coupling (screw, gear, ...) relates joint coordinates:
			 * a constraint on the tree's own coordinates, as a loop
			 * closure is, and the recursion has no rows */
			diag_error(d, &jt->pos, "joint '%s' is %s: %s", jt->name,
				   joint_type_names[jt->type], jt->cpl ?
				   "the tree formulation cannot take a coupling of joint coordinates "
				   "(it has no constraint rows, as for a closed loop); "
				   "integrator.formulation: rp takes gear, rack_pinion, coupler and "
				   "screw joints" :
				   "the tree formulation has no joint coordinates for it (it takes "
				   "revolute, cylindrical, translational, universal, spherical, planar "
				   "and fixed joints; integrator.formulation: rp takes every joint)");
			bad = 1;
			continue;
		}
		int a = jt->body[0] < 0 ? nb : jt->body[0], b = jt->body[1] < 0 ? nb : jt->body[1];
		int ra_ = uf_find(up, a), rb = uf_find(up, b);
		if (ra_ == rb) {
			diag_error(d, &jt->pos, "joint '%s' closes a loop: its bodies '%s' and '%s' "
				   "are already connected by the joints before it; the tree "
				   "formulation needs a tree rooted at the ground, every body with one "
				   "joint towards it (integrator.formulation: rp takes closed loops)",
				   jt->name, a == nb ? "ground" : m->bodies[a].name,
				   b == nb ? "ground" : m->bodies[b].name);
			bad = 1;
			continue;
		}
		up[ra_] = rb;
	}
	free(up);
	/* drivers: a prescribed coordinate of a revolute, cylindrical or
	 * translational joint (model.c takes no others), each once */
	for (int i = 0; i < m->ndrivers; i++) {
		const struct driver *dv = &m->drivers[i];
		if (dv->joint < 0 || dv->joint >= m->njoints)
			continue;	/* model_finalize names it */
		for (int k = 0; k < i; k++)
			if (m->drivers[k].joint == dv->joint && m->drivers[k].kind == dv->kind) {
				diag_error(d, &dv->pos, "driver '%s' drives the coordinate of joint "
					   "'%s' that driver '%s' drives already", dv->name,
					   m->joints[dv->joint].name, m->drivers[k].name);
				bad = 1;
				break;
			}
	}
	for (int i = 0; i < m->nforces; i++)
		if (elem_props(&m->forces[i]) & ELEM_LAMBDA) {
			diag_error(d, &m->forces[i].pos, "%s '%s': the tree formulation does not "
				   "take %s yet (it needs the joint's normal force; "
				   "integrator.formulation: rp does)",
				   force_type_names[m->forces[i].type], m->forces[i].name,
				   force_type_names[m->forces[i].type]);
			bad = 1;
		}
	return bad ? -1 : 0;
}

static enum tj tj_of(enum joint_type t)
{
	switch (t) {
	case JOINT_REVOLUTE:
		return TJ_REVOLUTE;
	case JOINT_CYLINDRICAL:
		return TJ_CYLINDRICAL;
	case JOINT_TRANSLATIONAL:
		return TJ_TRANSLATIONAL;
	case JOINT_UNIVERSAL:
		return TJ_UNIVERSAL;
	case JOINT_SPHERICAL:
		return TJ_SPHERICAL;
	case JOINT_PLANAR:
		return TJ_PLANAR;
	default:
		return TJ_FIXED;
	}
}

/* The nodes in tree order: breadth first from the ground, then from the
 * first body of each group no joint connects to the ground (a free root). */
static void build_nodes(struct tree *T)
{
	const struct model *m = T->s->m;
	int nb = m->nbodies, nj = m->njoints;
	int *deg = xcalloc((size_t)nb + 2, sizeof(int)), *adj = xmalloc(2 * ((size_t)nj + 1) * sizeof(int));
	int *ground = xmalloc(((size_t)nj + 1) * sizeof(int)), ng = 0;
	for (int j = 0; j < nj; j++)
		for (int k = 0; k < 2; k++)
			if (m->joints[j].body[k] >= 0)
				deg[m->joints[j].body[k] + 1]++;
	for (int b = 0; b < nb; b++)
		deg[b + 1] += deg[b];
	int *pos = xmalloc(((size_t)nb + 1) * sizeof(int));
	memcpy(pos, deg, (size_t)nb * sizeof(int));
	for (int j = 0; j < nj; j++) {
		const struct joint *jt = &m->joints[j];
		for (int k = 0; k < 2; k++)
			if (jt->body[k] >= 0)
				adj[pos[jt->body[k]]++] = j;
		if (jt->body[0] < 0 || jt->body[1] < 0)
			ground[ng++] = j;
	}
	int *node_of = xmalloc(((size_t)nb + 1) * sizeof(int));
	for (int b = 0; b < nb; b++)
		node_of[b] = -1;
	int count = 0, head = 0, q = 0;
	/* the children of the ground, then each free root, each followed by
	 * a breadth-first sweep of what it reaches */
	for (int root = -1; root < nb; root++) {
		if (root < 0) {
			for (int g = 0; g < ng; g++) {
				const struct joint *jt = &m->joints[ground[g]];
				int c = jt->body[0] < 0 ? jt->body[1] : jt->body[0];
				struct tnode *J = &T->nd[count];
				J->body = c;
				J->parent = -1;
				J->joint = ground[g];
				node_of[c] = count++;
			}
		} else {
			if (node_of[root] >= 0)
				continue;
			struct tnode *J = &T->nd[count];
			J->body = root;
			J->parent = -1;
			J->joint = -1;
			node_of[root] = count++;
		}
		for (; head < count; head++) {
			int b = T->nd[head].body;
			for (int e = deg[b]; e < deg[b + 1]; e++) {
				int j = adj[e];
				if (j == T->nd[head].joint)
					continue;
				const struct joint *jt = &m->joints[j];
				int c = jt->body[0] == b ? jt->body[1] : jt->body[0];
				struct tnode *J = &T->nd[count];
				J->body = c;
				J->parent = head;
				J->joint = j;
				node_of[c] = count++;
			}
		}
	}
	/* types, markers, coordinates */
	for (int i = 0; i < nb; i++) {
		struct tnode *J = &T->nd[i];
		struct tgeo *G = &T->geo[i];
		if (J->joint < 0) {
			J->type = m->bodies[J->body].kind == BODY_PARTICLE ? TJ_POINT : TJ_FREE;
			memcpy(G->Fp, I3, sizeof G->Fp);
			memcpy(G->Fc, I3, sizeof G->Fc);
		} else {
			const struct joint *jt = &m->joints[J->joint];
			int side = jt->body[1] == J->body ? 1 : 0;
			J->type = tj_of(jt->type);
			v3_copy(G->sc, jt->s[side]);
			memcpy(G->Fc, jt->F[side], sizeof G->Fc);
			v3_copy(G->sp, jt->s[1 - side]);
			memcpy(G->Fp, jt->F[1 - side], sizeof G->Fp);
		}
		memcpy(G->C, I3, sizeof G->C);
		J->n = tj_n[J->type];
		J->nr = J->n;	/* every coordinate with inertia until backward's
				 * first pass finds massless ones */
		for (int a = 0; a < J->n; a++)
			J->ri[a] = a;
		J->q0 = q;
		q += J->n;
		tree_kin_update(T, i);
	}
	/* the backward pass's sums (node_backward): the last child of each
	 * parent in tree order is the first that pass meets */
	for (int i = nb - 1; i >= 0; i--) {
		struct tnode *J = &T->nd[i];
		if (J->parent >= 0 && !T->nd[J->parent].kids) {
			J->first = 1;
			T->nd[J->parent].kids = 1;
		}
		if (J->parent >= 0 && J->parent != i - 1)
			T->nd[J->parent].far = 1;
	}
	/* the markers and masses the passes read, one entry for a run of
	 * nodes with the same */
	int nk = 0, nm = 0;
	for (int i = 0; i < nb; i++) {
		struct tnode *J = &T->nd[i];
		const struct tgeo *G = &T->geo[i];
		struct tkin k;
		struct tmass ms;
		memcpy(k.Fp, G->Fp, sizeof k.Fp);
		v3_copy(k.sp, G->sp);
		v3_copy(k.sc, G->sc);
		if (!nk || memcmp(&T->kin[nk - 1], &k, sizeof k))
			T->kin[nk++] = k;
		J->ki = nk - 1;
		ms.m = T->s->mass[J->body];
		memcpy(ms.J, ra_inertia(T->s, J->body), sizeof ms.J);
		if (!nm || memcmp(&T->ms[nm - 1], &ms, sizeof ms))
			T->ms[nm++] = ms;
		J->mi = nm - 1;
	}
	T->nq = q;
	(void)head;
	free(deg);
	free(adj);
	free(ground);
	free(pos);
	free(node_of);
}

/* Each driver's coordinate leaves the state (struct tdrv): drv, ri, nr
 * of its node, the state indices sx, the full vectors. */
static void setup_drivers(struct tree *T)
{
	const struct model *m = T->s->m;
	for (int i = 0; i < T->nb; i++)
		for (int a = 0; a < 6; a++)
			T->nd[i].drv[a] = -1;
	T->dv = xcalloc((size_t)m->ndrivers + 1, sizeof(*T->dv));
	T->ndv = 0;
	for (int k = 0; k < m->ndrivers; k++) {
		const struct driver *dv = &m->drivers[k];
		struct tnode *J = &T->nd[T->jnode[dv->joint]];
		int a = dv->kind == DRIVER_TRANSLATION && J->type == TJ_CYLINDRICAL ? 1 : 0;
		J->drv[a] = (signed char)k;
		J->ndrv++;
		struct tdrv *D = &T->dv[T->ndv++];
		D->node = T->jnode[dv->joint];
		D->a = a;
		D->q = J->q0 + a;
		D->sig = 1.0;
	}
	T->sx = xmalloc(((size_t)T->nq + 1) * sizeof(int));
	T->ns = 0;
	for (int i = 0; i < T->nb; i++) {
		struct tnode *J = &T->nd[i];
		J->nr = 0;
		for (int a = 0; a < J->n; a++) {
			if (J->drv[a] >= 0) {
				T->sx[J->q0 + a] = -1;
				continue;
			}
			J->ri[J->nr++] = a;
			T->sx[J->q0 + a] = T->ns++;
		}
	}
	size_t n = (size_t)T->nq + 1;
	T->Yf = xcalloc(n, sizeof(double));
	T->Ydf = xcalloc(n, sizeof(double));
	T->Yddf = xcalloc(n, sizeof(double));
	T->Rf = xcalloc(n, sizeof(double));
	T->Pdd = xcalloc(n, sizeof(double));
}

struct tree *tree_new(struct ra *s, struct diag *d)
{
	if (tree_check(s->m, d))
		return NULL;
	struct tree *T = xcalloc(1, sizeof(*T));
	T->s = s;
	T->nb = s->nb;
	T->nd = xcalloc((size_t)T->nb + 1, sizeof(*T->nd));
	T->geo = xcalloc((size_t)T->nb + 1, sizeof(*T->geo));
	T->kin = xcalloc((size_t)T->nb + 1, sizeof(*T->kin));
	T->ms = xcalloc((size_t)T->nb + 1, sizeof(*T->ms));
	T->CF = xcalloc(9 * (size_t)T->nb + 1, sizeof(double));
	build_nodes(T);
	/* each node's parts of fw and bw (struct twork), in tree order;
	 * offsets as int (a model of 2^31 doubles is out of reach) */
	size_t fo = 0, bo = 0;
	for (int i = 0; i < T->nb; i++) {
		size_t n = (size_t)T->nd[i].n;
		T->nd[i].ko = (int)fo;
		T->nd[i].bo = (int)bo;
		fo += FW_SIZE(n);
		bo += BW_SIZE(n);
	}
	T->fw = xcalloc(fo + 1, sizeof(double));
	T->bw = xcalloc(bo + 1, sizeof(double));
	T->acc = xcalloc(6 * (size_t)T->nb + 1, sizeof(double));
	T->om = xcalloc(3 * (size_t)T->nb + 1, sizeof(double));
	T->ih = xcalloc(42 * (size_t)T->nb + 1, sizeof(double));
	ra_state_init(s, &T->x);
	T->F = xcalloc(6 * (size_t)T->nb + 1, sizeof(double));
	T->gravity_only = s->m->nforces == 0 && s->m->nbeams == 0 && !s->contact;
	T->y = xcalloc((size_t)T->nq + 1, sizeof(double));
	T->yd = xcalloc((size_t)T->nq + 1, sizeof(double));
	T->R0 = xcalloc(9 * (size_t)T->nb + 1, sizeof(double));
	T->jnode = xcalloc((size_t)s->m->njoints + 1, sizeof(int));
	for (int i = 0; i < T->nb; i++)
		if (T->nd[i].joint >= 0)
			T->jnode[T->nd[i].joint] = i;
	setup_drivers(T);
	tree_ode_init(T);
	for (int b = 0; b < T->nb; b++)
		if (!tree_body_regular(s->m, b))
			T->singular = 1;
	return T;
}

void tree_free(struct tree **pT)
{
	struct tree *T = *pT;
	if (!T)
		return;
	free(T->nd);
	free(T->geo);
	free(T->kin);
	free(T->ms);
	free(T->CF);
	free(T->fw);
	free(T->bw);
	free(T->acc);
	free(T->om);
	free(T->ih);
	free(T->lam);
	free(T->F);
	free(T->y);
	free(T->yd);
	free(T->R0);
	free(T->jnode);
	free(T->dv);
	free(T->sx);
	free(T->Yf);
	free(T->Ydf);
	free(T->Yddf);
	free(T->Rf);
	free(T->Pdd);
	ra_state_release(&T->x);
	free(T);
	*pT = NULL;
}

struct ode_sys *tree_ode(struct tree *T)
{
	return &T->ode;
}

int tree_ncoords(const struct tree *T)
{
	return T->ns;
}

long tree_rebases(const struct tree *T)
{
	return T->rebases;
}

void tree_node(const struct tree *T, int b, int *q0, int *n, int *parent, int *joint)
{
	for (int i = 0; i < T->nb; i++)
		if (T->nd[i].body == b) {
			*q0 = T->nd[i].q0;
			*n = T->nd[i].n;
			*parent = T->nd[i].parent >= 0 ? T->nd[T->nd[i].parent].body : -1;
			*joint = T->nd[i].joint;
			return;
		}
}

int tree_joint_ncoords(enum joint_type t)
{
	return joint_ok(t) ? tj_n[tj_of(t)] : 0;
}

/* The coordinates as tree.h states them: q and q-dot of the last f, but
 * for a spherical joint the rotation vector from the start pose R0, in P
 * exp(phi~) = exp(q~) C R0^T (the principal logarithm), and its rate
 * phi-dot = J_l(phi)^-1 om, om = H(q) q-dot the relative angular velocity
 * in P (J_l(phi) = J_r(-phi), so J_l^-1(phi) = so3_jrinv(-phi)), both
 * turned into the parent's body frame by Fp. */
int tree_joint_coords(const struct tree *T, int j, double *q, double *qd)
{
	int i = T->jnode[j];
	const struct tnode *J = &T->nd[i];
	const double *y = T->y + J->q0, *yd = T->yd + J->q0;
	if (J->type != TJ_SPHERICAL) {
		memcpy(q, y, (size_t)J->n * sizeof(double));
		memcpy(qd, yd, (size_t)J->n * sizeof(double));
		return J->n;
	}
	double E[9], R[9], D[9], H[9], hq[3], om[3], phi[3], mphi[3], Ji[9], r[3];
	so3_exp(E, y);
	m3_mul(R, E, T->geo[i].C);
	m3_mult(D, R, T->R0 + 9 * i);
	so3_log(phi, D);
	tree_chart_jac(y, yd, H, hq);
	m3_tmulv(om, H, yd);	/* H's columns at H[3 k] */
	v3_scale(mphi, -1.0, phi);
	so3_jrinv(Ji, mphi);
	m3_mulv(r, Ji, om);
	/* from P to the parent's body frame: A_p^T A_c = Fp D Fp^T (A_p^T
	 * A_c)(t0), Fp D Fp^T = exp((Fp phi)~) */
	m3_mulv(q, T->geo[i].Fp, phi);
	m3_mulv(qd, T->geo[i].Fp, r);
	return 3;
}
