/* choose.h - integrator.method: auto: the scheme and formulation chosen
 * from the model (choose.c; the rule in mbsim-deck(5), INTEGRATOR). */
#ifndef MBSIM_CHOOSE_H
#define MBSIM_CHOOSE_H

#include "../model/model.h"
#include "../model/options.h"

struct diag;

/* When o->method_auto: o->method, o->formulation and o->adaptive from m,
 * and the reason in o->method_why; 0, or -1 with a record in d (a
 * formulation given with auto).  Nothing when not method_auto. */
int sim_choose_scheme(const struct model *m, struct sim_options *o, struct diag *d);

#endif
