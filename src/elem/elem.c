/* elem.c - the table of force-element types (elem.h, elem.def). */
#include "elem.h"
#include "../util/xalloc.h"

#define ELEM(id, name, help) extern const struct elem_ops elem_##name;
#include "elem.def"
#undef ELEM

const struct elem_ops *const elem_types[FORCE_NTYPES] = {
#define ELEM(id, name, help) &elem_##name,
#include "elem.def"
#undef ELEM
};

void *elem_par(struct force *f)
{
	if (!f->par)
		f->par = xcalloc(1, elem_of(f)->par_size);
	return f->par;
}

unsigned elem_common_props(const struct force *f)
{
	return (f->has_act || f->ex ? ELEM_NO_POTENTIAL | ELEM_OF_TIME : 0u) |
	       (f->ex ? ELEM_STATE_EXPR : 0u);
}

void elem_joint_bodies(const struct model *m, const struct force *f, int b[2])
{
	b[0] = m->joints[f->joint].body[0];
	b[1] = m->joints[f->joint].body[1];
}
