/* ra_energy.c - energies and nonconservative power of the ra formulation
 * (ra.h): kinetic and potential energy of the bodies, gravity, the force
 * elements and the beams, and the power of what is not in the potential
 * (dampers, actuators, expressions, friction, motors, tyres, nonlinear
 * bushing curves, beam damping, driver rows). */
#include "ra_force_impl.h"

void ra_energy(const struct ra *s, const struct ra_state *x, double *kin, double *pot)
{
	const struct model *m = s->m;
	double K = 0.0, V = 0.0;
	for (int b = 0; b < s->nb; b++) {
		double Jw[3];
		const double *w = x->w + 3 * b;
		m3_mulv(Jw, ra_inertia(s, b), w);
		K += 0.5 * (s->mass[b] * v3_dot(x->v + 3 * b, x->v + 3 * b) + v3_dot(w, Jw));
		V -= s->mass[b] * v3_dot(m->gravity, x->r + 3 * b);
	}
	for (int i = 0; i < m->nforces; i++) {
		const struct force *f = &m->forces[i];
		if (f->type == FORCE_TSDA && f->k != 0.0) {
			struct tsda_kin k;
			ra_tsda_kin(x, f, &k);
			V += 0.5 * f->k * (k.l - f->l0) * (k.l - f->l0);
		} else if (f->type == FORCE_RSDA && f->k != 0.0) {
			double rate, z[3], e = ra_rsda_def(s, x, i, &rate, z);
			V += 0.5 * f->k * e * e;
		} else if (f->type == FORCE_BUSHING) {
			struct ra_fout o;
			double out[12];
			ra_elem_eval(s, x, x->t, NULL, i, out, &o);
			V += o.energy;
		} else if (f->type == FORCE_TIRE) {
			struct tire_kin k;
			ra_tire_kin(x, f, &k);
			V += tire_energy(f, &k);
		}
	}
	if (m->nbeams)
		V += ra_beam_energy(s, x);
	*kin = K;
	*pot = V;
}

/* Power of the driver rows' constraint forces, -lam_k (Phi_q,k qdot) */
static double driver_power(const struct ra *s, const struct ra_state *x)
{
	const struct model *m = s->m;
	double P = 0.0;
	for (int i = 0; i < m->ndrivers; i++) {
		int k = m->drivers[i].row0;
		const struct prim *p = &m->dprims[i];
		struct bstate bi, bj;
		struct prim_out o;
		ra_bstate(x, p->bi, &bi);
		ra_bstate(x, p->bj, &bj);
		prim_eval(p, &bi, &bj, x->t, PRIM_JAC, &o);
		double qd = v3_dot(o.J[0], bi.v) + v3_dot(o.J[1], bi.w) +
			    v3_dot(o.J[2], bj.v) + v3_dot(o.J[3], bj.w);
		P -= x->lam[k] * qd;
	}
	return P;
}

double ra_ncpower(struct ra *s, const struct ra_state *x, double part[2])
{
	const struct model *m = s->m;
	double Pd = driver_power(s, x), Pm = 0.0, P = Pd;
	if (m->nbeams)
		P += ra_beam_ncpower(s, x);
	for (int i = 0; i < m->nforces; i++) {
		const struct force *f = &m->forces[i];
		double z[3], rate, vrel, G[3];
		switch (f->type) {
		case FORCE_TSDA: {
			struct tsda_kin k;
			ra_tsda_kin(x, f, &k);
			P -= (f->c * k.ld + act(f, x->t) +
			      ra_expr_of(s, x, x->t, f, k.l - f->l0, k.ld)) * k.ld;
			break;
		}
		case FORCE_RSDA: {
			double e = ra_rsda_def(s, x, i, &rate, z);
			P -= (f->c * rate + act(f, x->t) + ra_expr_of(s, x, x->t, f, e, rate)) *
			     rate;
			break;
		}
		case FORCE_POINT:
		case FORCE_TORQUE: {
			int b = f->body[0];
			if (f->type == FORCE_TORQUE && f->joint >= 0) {
				double Fe[3], dv[3];
				v3_scale(G, f->ex ? ra_expr_of(s, x, x->t, f, 0.0, 0.0) :
					 act(f, x->t), f->vec);
				ra_link_torque(x, &m->joints[f->joint], G, Fe, dv);
				P += v3_dot(Fe, dv);
				break;
			}
			if (b < 0)
				break;
			struct bstate bs;
			double p[3], pv[3], wg[3];
			ra_bstate(x, b, &bs);
			if (f->body_frame)
				m3_mulv(G, bs.A, f->vec);
			else
				v3_copy(G, f->vec);
			v3_scale(G, f->ex ? ra_expr_of(s, x, x->t, f, 0.0, 0.0) : act(f, x->t), G);
			if (f->type == FORCE_POINT) {
				point_kin(&bs, f->s[0], p, pv);
				P += v3_dot(G, pv);
			} else {
				m3_mulv(wg, bs.A, bs.w);
				P += v3_dot(G, wg);
			}
			break;
		}
		case FORCE_FRICTION:
			P += ra_friction_force(s, x, f, x->lam, z, &vrel) * vrel;
			break;
		case FORCE_MOTOR: {
			struct ra_fout o;
			ra_force_out(s, x, x->t, i, &o);
			P += o.power;
			Pm += o.power;
			break;
		}
		case FORCE_TIRE: {
			/* its power less what the spring energy k d^2/2 gives up,
			 * -k d d': the damper's work, and on a sloped road the
			 * spring's too (a vertical force k d(x, y, z) has no
			 * potential unless h is constant) */
			struct ra_fout o;
			ra_force_out(s, x, x->t, i, &o);
			P += o.power;
			if (o.deflection > 0.0)
				P += f->k * o.deflection * o.rate;
			break;
		}
		case FORCE_BUSHING: {
			/* the dampers' and curves' power; linear springs and
			 * preloads are in V */
			struct bush_kin k;
			double mth[3], Ji[9], thdot[3];
			ra_bush_kin(x, f, &k);
			/* A linear rotational spring's moment -K th (th = log of
			 * R0^T R1) delivers -(K th).thd, thd the relative angular
			 * velocity in marker 0's axes, while V holds 1/2 th.K th,
			 * whose rate is (K th).th' with th' = J_l(th)^-1 thd
			 * (J_l(th)^-1 = J_r(-th)^-1).  J_l^T th = th makes the two
			 * equal for equal stiffnesses; for unequal ones the
			 * difference is work that V does not hold. */
			mth[0] = -k.th[0], mth[1] = -k.th[1], mth[2] = -k.th[2];
			so3_jrinv(Ji, mth);
			m3_mulv(thdot, Ji, k.thd);
			for (int c = 0; c < 3; c++) {
				if (!f->x->kc[3 + c])
					P += f->x->K6[3 + c] * k.th[c] * (thdot[c] - k.thd[c]);
				P -= f->x->C6[c] * k.dd[c] * k.dd[c] + f->x->C6[3 + c] * k.thd[c] * k.thd[c];
				if (f->x->kc[c])
					P -= bush_elastic(f, c, k.d[c]) * k.dd[c];
				if (f->x->kc[3 + c])
					P -= bush_elastic(f, 3 + c, k.th[c]) * k.thd[c];
			}
			break;
		}
		default:
			break;
		}
	}
	if (part) {
		part[0] = Pm;
		part[1] = Pd;
	}
	return P;
}
