/* force.h - the deck readers a force element's build operation uses
 * (elem/elem.h; defined in force.c).  Each reports at FILE:LINE:COL and
 * sets fr->bad on an error. */
#ifndef MBSIM_DECK_FORCE_H
#define MBSIM_DECK_FORCE_H

#include "build.h"

/* Force being read. */
struct fread {
	const struct dnode *item;
	struct force f;		/* filled, then copied into the model */
	const char *what;	/* "force 'spring'" */
	int bad;
};

/* Its parameter struct (elem_par on fr->f). */
void *fread_par(struct fread *fr);
/* x < 0 at key: an error */
void force_nonneg(struct bctx *b, struct fread *fr, const char *key, double x);
/* optional key, not negative; untouched when absent */
void force_opt_nonneg(struct bctx *b, struct fread *fr, const char *key, double *x);
/* required key, positive */
void force_positive(struct bctx *b, struct fread *fr, const char *key, double *x);
/* optional vector of 3 entries, none negative */
void force_vec_nonneg(struct bctx *b, struct fread *fr, const char *key, double *x);
/* required body at key (-2 after an error) */
int force_body_of(struct bctx *b, struct fread *fr, const char *key);
/* the one body (not the ground) at 'body', into f.body[0] */
int force_loaded_body(struct bctx *b, struct fread *fr);
/* Point k on its body: body-frame key pk or global key ak (default 0
 * when not required) into f.s[k]. */
void force_attach(struct bctx *b, struct fread *fr, int k, const char *pk, const char *ak,
		  int required);
/* A particle is loaded at its centre only: attachment k snapped to it,
 * or an error at pk or ak. */
void force_particle_end(struct bctx *b, struct fread *fr, int k, const char *pk,
			const char *ak);
/* The actuator function at key into f.x->act; unit: a constant 1 when
 * absent (the multiplier of a force or torque). */
void force_actuator(struct bctx *b, struct fread *fr, const char *key, int unit);
/* 'joint': a joint of one of the types (bit 1 << type), its bodies into
 * f.body; need_txt names them in the message. */
void force_joint_of(struct bctx *b, struct fread *fr, unsigned types, const char *need_txt);
/* 'expression' into f.ex: self names the element's deflection and rate;
 * excl, when not NULL, a key it must not appear with. */
void force_expression(struct bctx *b, struct fread *fr, int self, const char *excl);

#endif
