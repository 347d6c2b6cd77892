/* build.h - shared state and typed accessors of the deck builder.
 * Internal to deck/.
 *
 * Conventions: get_* read a value node and return 0, or -1 after
 * reporting; opt_* look a key up in a map and return 0 when it is absent
 * (output untouched), 1 when read, -1 after reporting; req_* report a
 * missing key and return 1 or -1. `what` names the enclosing element in
 * messages, e.g. "body 'crank'".
 */
#ifndef MBSIM_DECK_BUILD_H
#define MBSIM_DECK_BUILD_H

#include "../model/model.h"
#include "../model/options.h"
#include "../util/diag.h"
#include "expr.h"
#include "keys.h"
#include "tree.h"

/* A --set aimed at an item that a repeat block makes (bodies.wheel3.mass):
 * kept until the builder expands the block (deck_set_repeated). */
struct set_pending {
	char *a;			/* the whole assignment */
	size_t name_at, keylen;		/* offset of the item name; of '=' */
	char *list;			/* the top-level list: bodies, joints, ... */
	const struct key_sect *sect;	/* its items' keys */
	struct dnode *val;
	int used;
};

/* The loaded deck (deck.c). */
struct deck {
	char *path;
	char *text;		/* file contents, NUL-terminated */
	struct dnode *root;
	double *out_times;	/* output.times of the last deck_build */
	struct set_pending *pend;
	int npend;
	char **kept;		/* file names diagnostics point into */
	int nkept;
};

/* Apply the pending --set of list `list` whose item name is that of copy
 * (an expanded repeat item); 0 or -1 after reporting. */
int deck_set_repeated(struct deck *dk, const char *list, struct dnode *copy,
		      struct diag *d);
/* Report every pending --set that named no item of its list, suggesting
 * among names[0..n) when list matches; returns the number reported. */
int deck_set_unused(struct deck *dk, const char *list, const char *const *names, int n,
		    struct diag *d);

struct bctx {
	struct diag *d;
	struct expr *ex;
	struct model *m;
	struct dnode *root;
	int param_failed;	/* a parameter failed: silence follow-on errors */
	struct deck *dk;	/* for the --set of repeat copies */
	int no_bodies, no_joints;	/* section missing: 1 once the first
					 * reference has said so (no cascade) */
	int stopped;		/* interrupted (util/interrupt.h), reported once */
	struct sx_cache *sxc;	/* state expressions shared by text (sexpr.h) */
	int singular_ok;	/* integrator.method bdf: masses may be singular
				 * (the tree formulation, seed 003 §3.3) */
};

int get_num(struct bctx *b, const struct dnode *v, const char *key, double *out);
int get_int(struct bctx *b, const struct dnode *v, const char *key, long *out);
int get_bool(struct bctx *b, const struct dnode *v, const char *key, int *out);
int get_str(struct bctx *b, const struct dnode *v, const char *key, const char **out);
int get_vec3(struct bctx *b, const struct dnode *v, const char *key, double out[3]);
/* 0 when v is a list of n items; else 1 with what it is in buf ("a list
 * of 5", "a mapping", "'3'"), for an "expected ..., got %s" message. */
int not_list_of(const struct dnode *v, int n, char *buf, size_t size);
/* The name of a body, joint, driver or force: a string of 1 to
 * DECK_MAX_NAME characters without '/' (output paths, e.g.
 * /bodies/NAME/position, must stay distinct and within their buffers). */
#define DECK_MAX_NAME 128
#define DECK_MAX_NAME_TEXT "128"
int get_name(struct bctx *b, const struct dnode *v, const char *noun, const char **out);
int get_numlist(struct bctx *b, const struct dnode *v, const char *key,
		double *out, int max, int *n);

int opt_num(struct bctx *b, const struct dnode *map, const char *key, double *out);
int opt_int(struct bctx *b, const struct dnode *map, const char *key, long *out);
int opt_bool(struct bctx *b, const struct dnode *map, const char *key, int *out);
int opt_str(struct bctx *b, const struct dnode *map, const char *key, const char **out);
int opt_vec3(struct bctx *b, const struct dnode *map, const char *key, double out[3]);

const struct dnode *need(struct bctx *b, const struct dnode *map, const char *key,
			 const char *what);
int req_num(struct bctx *b, const struct dnode *map, const char *key,
	    const char *what, double *out);
int req_str(struct bctx *b, const struct dnode *map, const char *key,
	    const char *what, const char **out);
int req_vec3(struct bctx *b, const struct dnode *map, const char *key,
	     const char *what, double out[3]);

/* Require v to be a mapping ("expected a mapping for 'key', got ..."). */
int want_map(struct bctx *b, const struct dnode *v, const char *key);
/* Report duplicate and unknown keys of map against section s; keys whose
 * mask excludes typebit (when typebit != 0) are reported as not applying
 * to `typedesc`. Returns the number of errors. */
int check_keys(struct bctx *b, const struct dnode *map, const struct key_sect *s,
	       unsigned typebit, const char *typedesc);
/* Index of name in names[0..n), or report "unknown <noun> 'x'" with a
 * suggestion at v and return -1. */
int pick_name(struct bctx *b, const struct dnode *v, const char *noun,
	      const char *const *names, int n);

/* Element builders (one per list item, repeat already expanded). */
void build_body(struct bctx *b, const struct dnode *item);
void build_joint(struct bctx *b, const struct dnode *item);
void build_driver(struct bctx *b, const struct dnode *item);
void build_force(struct bctx *b, const struct dnode *item);
void build_point(struct bctx *b, const struct dnode *item);
/* beams: a beam and its node bodies (beam.c) */
void build_beam(struct bctx *b, const struct dnode *item);
/* Issue 15 (curve.c): curves: and measures: items; a state expression
 * (model/sexpr.h) from scalar v, reported at v's FILE:LINE:COL; self:
 * the element's deflection and rate may be named. */
void build_curve(struct bctx *b, const struct dnode *item);
/* s (malloc'd) kept until the deck is freed, for a diagnostic's srcpos
 * in a file the deck names; NULL (s freed) without a deck. */
const char *deck_keep(struct bctx *b, char *s);
void build_measure(struct bctx *b, const struct dnode *item);
/* events: items (curve.c) */
void build_event(struct bctx *b, const struct dnode *item);
struct sexpr;
int build_sexpr(struct bctx *b, const struct dnode *v, const char *key, const char *what,
		int self, struct sexpr **out);
/* A road height h(x, y) (tire): an expression of x and y, parameters and
 * curves only (sx_scope.road), reported as build_sexpr's. */
int build_road(struct bctx *b, const struct dnode *v, const char *key, const char *what,
	       struct sexpr **out);
/* Parse a function mapping into fn (fn->seg malloc'd for piecewise). */
/* The deck's parameters and repeat indices in scope, as parallel arrays
 * (the caller frees both): their number. */
int param_table(struct bctx *b, const char ***names, double **vals);
struct curve;
/* The knots of a tabulated curve from item's lists under xk and yk or its
 * CSV 'file' (deck/curve.c); 0, or 1 after reporting. */
int build_curve_data(struct bctx *b, const struct dnode *item, const char *xk,
		     const char *yk, const char *what, int bad, struct curve *c);
int build_func(struct bctx *b, const struct dnode *v, const char *key,
	       const char *what, struct func *fn);
/* Orientation mapping -> rotation matrix A (body -> global). */
int build_orientation(struct bctx *b, const struct dnode *v, const char *what,
		      double A[9]);
/* The path of a file a deck names (a mesh, a curve's CSV): a relative
 * name is beside the deck file.  malloc'd. */
char *deck_file(const struct bctx *b, const char *file);
/* A body's shape mapping into s (shape.c); 0 or -1 after reporting. */
struct shape;
int build_shape(struct bctx *b, const struct dnode *v, const char *what, struct shape *s);
/* Contact (contact.c): the contact: section and contact_planes: list,
 * read before the bodies; a body's contact material v with its shape s
 * (NULL: none, or given and reported when shape_given), 0 or -1 after
 * reporting; the checks across materials,
 * after the bodies. */
struct contact_mat;
void build_contact_top(struct bctx *b, const struct dnode *root);
int build_body_contact(struct bctx *b, const struct dnode *v, const char *what,
		       const struct shape *s, int shape_given, struct contact_mat *c);
void check_contact(struct bctx *b);
/* Body reference: index, MODEL_GROUND, or -2 after reporting. */
int resolve_body(struct bctx *b, const struct dnode *v, const char *what);
int resolve_joint(struct bctx *b, const struct dnode *v, const char *what);
/* Report a duplicate element name: error at v, note at first. */
void dup_name(struct bctx *b, const struct dnode *v, const char *noun,
	      const struct srcpos *first);

#endif
