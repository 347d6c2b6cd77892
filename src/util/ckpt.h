/* ckpt.h - one walk that saves or loads a run's state as a flat vector of
 * doubles (the checkpoint of man mbsim-output(5), /checkpoint).
 *
 * Whoever owns state that a step depends on writes one function that
 * names its fields in order, calling ckpt_d, ckpt_i or ckpt_l on each;
 * the same function saves (c->load = 0: values copied into c->v, or only
 * counted when c->v is NULL) and loads (c->load = 1: values copied out of
 * c->v), so the two directions cannot disagree on the layout.  Integers
 * travel as doubles (exact below 2^53).  A load that runs past the end of
 * c->v sets c->bad and copies nothing more.
 */
#ifndef MBSIM_CKPT_H
#define MBSIM_CKPT_H

#include <string.h>

struct ckpt {
	int load;		/* 0: save (count when v is NULL), 1: load */
	double *v;
	long n;			/* values walked so far */
	long cap;		/* load: values in v */
	int bad;		/* load: v was too short */
};

static inline void ckpt_d(struct ckpt *c, double *p, long n)
{
	if (n <= 0)
		return;
	if (c->load) {
		if (c->bad || c->n + n > c->cap) {
			c->bad = 1;
			return;
		}
		memcpy(p, c->v + c->n, (size_t)n * sizeof(double));
	} else if (c->v) {
		memcpy(c->v + c->n, p, (size_t)n * sizeof(double));
	}
	c->n += n;
}

static inline void ckpt_i(struct ckpt *c, int *p, long n)
{
	for (long k = 0; k < n; k++) {
		double d = p[k];
		ckpt_d(c, &d, 1);
		if (c->load && !c->bad)
			p[k] = (int)d;
	}
}

static inline void ckpt_l(struct ckpt *c, long *p, long n)
{
	for (long k = 0; k < n; k++) {
		double d = (double)p[k];
		ckpt_d(c, &d, 1);
		if (c->load && !c->bad)
			p[k] = (long)d;
	}
}

#endif
