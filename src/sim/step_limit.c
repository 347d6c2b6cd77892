/* step_limit.c - the step limits that elements offer to adaptive runs
 * (sim_impl.h): the road look-ahead of tires (ra_road_ahead). */
#include "sim_impl.h"
#include "../util/xalloc.h"

#include <stdlib.h>

/* The tires' look-ahead: every tire of the model in one scan (ra.h),
 * with what each one's last scan of its road found. */
struct road {
	const struct model *m;
	struct road_scan *scan;	/* one per force element */
};

static double road_limit(void *ctx, const struct ra_state *x, double h)
{
	struct road *r = ctx;
	return ra_road_ahead(r->m, x, h, r->scan);
}

static void road_free(void *ctx)
{
	struct road *r = ctx;
	free(r->scan);
	free(r);
}

int step_limits_new(const struct model *m, struct step_limit **out)
{
	*out = NULL;
	for (int i = 0; i < m->nforces; i++)
		if (ra_tire_looks_ahead(&m->forces[i])) {
			struct road *r = xcalloc(1, sizeof *r);
			r->m = m;
			r->scan = xcalloc((size_t)m->nforces, sizeof *r->scan);
			*out = xcalloc(1, sizeof **out);
			(*out)[0].limit = road_limit;
			(*out)[0].free = road_free;
			(*out)[0].ctx = r;
			return 1;
		}
	return 0;
}

void step_limits_free(struct step_limit *l, int n)
{
	for (int i = 0; i < n; i++)
		l[i].free(l[i].ctx);
	free(l);
}
