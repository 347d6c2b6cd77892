/* registry.h - the table of integration schemes (registry.def). */
#ifndef MBSIM_REGISTRY_H
#define MBSIM_REGISTRY_H

enum integ_id {
#define X(id, name, fam, ops, form, ord, ord3, ord2, adapt, lag, help) INTEG_##id,
#include "registry.def"
#undef X
	INTEG_COUNT
};

struct integ_ops;

struct integ_info {
	enum integ_id id;
	const char *name, *family, *formulation;
	const struct integ_ops *ops;	/* the family's operations (integ.h) */
	int order;		/* design order of positions */
	int order3, order2;	/* on constrained positions at index 3 and 2 (0: none) */
	int adaptive, lag;
	const char *help;
};

extern const struct integ_info integ_table[INTEG_COUNT];
/* 1 when the scheme can step formulation form ("ra", "rp", "tree"):
 * its own, and for a scheme on the ODE seam of form/ode.h (registry
 * formulation rp or tree) the other ODE formulation too, except a
 * scheme on the residual form (its ops' resid: bdf), which only tree
 * offers. */
int integ_takes(const struct integ_info *info, const char *form);
/* Row by name, or NULL. */
const struct integ_info *integ_find(const char *name);

#endif
