/* registry.c - expands registry.def into the integrator table. */
#include "registry.h"

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
