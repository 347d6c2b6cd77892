/* registry.c - expands registry.def into the integrator table. */
#include "registry.h"

#include "integ.h"

#include <string.h>

/* each family's operations, defined in its file */
#define X(id, name, fam, ops, form, ord, ord3, ord2, adapt, lag, help) \
	extern const struct integ_ops ops;
#include "registry.def"
#undef X

const struct integ_info integ_table[INTEG_COUNT] = {
#define X(id, name, fam, ops, form, ord, ord3, ord2, adapt, lag, help) \
	{ INTEG_##id, name, fam, form, &ops, ord, ord3, ord2, adapt, lag, help },
#include "registry.def"
#undef X
};

const struct integ_info *integ_find(const char *name)
{
	for (int i = 0; i < INTEG_COUNT; i++)
		if (strcmp(integ_table[i].name, name) == 0)
			return &integ_table[i];
	return 0;
}

static int on_ode_seam(const char *form)
{
	return strcmp(form, "rp") == 0 || strcmp(form, "tree") == 0;
}

int integ_takes(const struct integ_info *info, const char *form)
{
	if (strcmp(info->formulation, form) == 0)
		return 1;
	return on_ode_seam(info->formulation) && on_ode_seam(form) && !info->ops->resid;
}
