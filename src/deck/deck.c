/* deck.c - loading a deck file, --set overrides, and the deck's lifetime. */
#include "deck.h"
#include "build.h"
#include "../util/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* File names of positions inside --set assignments and --unset keys. */
static const char set_file[] = "--set";
static const char unset_file[] = "--unset";

static char *read_file(const char *path, size_t *len, struct diag *d)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 4096, n = 0, got;
	if (!f) {
		diag_error(d, NULL, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	char *buf = xmalloc(cap);
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n > DECK_MAX_BYTES) {
			/* /dev/zero or a wrong file: stop before memory runs out */
			diag_error(d, NULL, "'%s' is larger than %d MiB: not a deck", path,
				   DECK_MAX_BYTES >> 20);
			fclose(f);
			free(buf);
			return NULL;
		}
		if (n + 1 == cap)
			buf = xrealloc(buf, cap *= 2);
	}
	if (ferror(f)) {
		diag_error(d, NULL, "cannot read '%s': %s", path, strerror(errno));
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

struct deck *deck_load(const char *path, struct diag *d)
{
	size_t len;
	char *text = read_file(path, &len, d);
	if (!text)
		return NULL;
	return deck_load_text(path, text, len, d);
}

struct deck *deck_load_text(const char *path, char *text, size_t len, struct diag *d)
{
	struct deck *dk = xcalloc(1, sizeof(*dk));
	dk->path = xstrdup(path);
	dk->text = text;
	int first = d->n;
	dk->root = dn_parse(text, len, dk->path, 1, 1, d);
	if (!dk->root) {
		/* the records must outlive the deck: point them at the
		 * caller's copy of the path */
		for (int i = first; i < d->n; i++)
			if (d->rec[i].pos.file == dk->path)
				d->rec[i].pos.file = path;
		deck_free(&dk);
	}
	return dk;
}

const char *deck_text(const struct deck *dk)
{
	return dk->text;
}

const char *deck_path(const struct deck *dk)
{
	return dk->path;
}

void deck_free(struct deck **dkp)
{
	struct deck *dk = *dkp;
	if (!dk)
		return;
	for (int i = 0; i < dk->npend; i++) {
		free(dk->pend[i].a);
		free(dk->pend[i].list);
		dn_free(dk->pend[i].val);
	}
	free(dk->pend);
	for (int i = 0; i < dk->nkept; i++)
		free(dk->kept[i]);
	free(dk->kept);
	dn_free(dk->root);
	free(dk->out_times);
	free(dk->text);
	free(dk->path);
	free(dk);
	*dkp = NULL;
}

void deck_print_keys(FILE *f)
{
	keys_print(f, &key_top, "");
}

/* Where the walk of a --set path stands: a node and what its children
 * may be. For a map, sect lists its keys (NULL: any identifier, as in
 * parameters); for a list, sect describes its items (NULL: scalars or
 * rows). */
struct setwalk {
	struct dnode *node;
	const struct key_sect *sect;
	const struct key_def *def;	/* key that led here, NULL at the top */
	const char *a;			/* the whole assignment */
	const char *file;		/* set_file or unset_file */
};

static struct srcpos set_pos(int col)
{
	struct srcpos p = { set_file, 1, col };
	return p;
}

/* A position in the argument the walk w reads. */
static struct srcpos walk_pos(const struct setwalk *w, int col)
{
	struct srcpos p = { w->file ? w->file : set_file, 1, col };
	return p;
}

static int is_scalar_type(const struct key_def *def)
{
	return !def || def->type == K_NUM || def->type == K_INT ||
	       def->type == K_BOOL || def->type == K_STR;
}

static int is_list_type(const struct key_def *def)
{
	return def && (def->type == K_VEC3 || def->type == K_NUMLIST || def->type == K_MAT3 ||
		       def->type == K_MAT6 || def->type == K_INERTIA);
}

/* Remove key i of map n. */
static void remove_key(struct dnode *n, int i)
{
	dn_free(n->keys[i]);
	dn_free(n->items[i]);
	memmove(n->keys + i, n->keys + i + 1, (size_t)(n->n - i - 1) * sizeof(*n->keys));
	memmove(n->items + i, n->items + i + 1, (size_t)(n->n - i - 1) * sizeof(*n->items));
	n->n--;
}

/* The list a missing vector key starts from when --set gives one of its
 * elements (gravity.2=0): its default, at the key's column; NULL after
 * an error when it has none. */
static struct dnode *default_list(const struct key_def *def, const char *path, int col,
				  struct diag *d)
{
	char text[128];
	struct srcpos p = set_pos(col);
	if (key_default_list(def, text, sizeof text)) {
		diag_error(d, &p, "'%s' is not in the deck and has no default to complete: "
			   "give the whole list, e.g. --set '%s=[...]'", path, path);
		return NULL;
	}
	return dn_parse(text, strlen(text), set_file, 1, col, d);
}

/* Step from a map into key seg; create the key when valid and missing
 * (a missing vector from its default when the path goes on into it).  At
 * the last segment, val NULL (--unset) removes the key: returns 1. */
static int step_map(struct setwalk *w, const char *seg, int col, int last,
		    struct dnode *val, struct diag *d)
{
	const struct key_def *def = NULL;
	struct srcpos p = walk_pos(w, col);
	char sug[96];

	if (w->sect && !(def = key_find(w->sect, seg))) {
		diag_error(d, &p, "unknown key '%s' in %s%s", seg, w->sect->noun,
			   key_suggest(w->sect, seg, sug, sizeof sug));
		return -1;
	}
	if (!w->sect && (!w->def || w->def->type != K_FREE || !expr_is_ident(seg))) {
		diag_error(d, &p, "'%s' is not a valid key here", seg);
		return -1;
	}
	int i = dn_find(w->node, seg);
	if (i < 0 && !w->sect) {
		/* a parameter the deck does not define would be set and never
		 * read: a sweep over a misspelt name gives identical runs */
		struct suggest sg;
		suggest_init(&sg, seg);
		for (int k = 0; k < w->node->n; k++)
			suggest_add(&sg, w->node->keys[k]->str);
		if (w->node->n == 0)
			diag_error(d, &p, "unknown parameter '%s': the deck defines no parameters",
				   seg);
		else
			diag_error(d, &p, "unknown parameter '%s'%s", seg,
				   suggest_text(&sg, sug, sizeof sug));
		return -1;
	}
	if (last && !val) {
		if (i < 0) {
			diag_error(d, &p, "'%.*s' is not in the deck: nothing to unset",
				   col - 1 + (int)strlen(seg), w->a);
			return -1;
		}
		remove_key(w->node, i);
		return 1;
	}
	if (i < 0) {
		if (!last && def && def->type == K_FREE) {
			/* at the parameter's name, after "parameters." */
			p = walk_pos(w, col + (int)strlen(seg) + 1);
			diag_error(d, &p, "unknown parameter '%.*s': the deck defines no parameters",
				   (int)strcspn(w->a + col + strlen(seg), ".="),
				   w->a + col + strlen(seg));
			return -1;
		}
		int path = col - 1 + (int)strlen(seg);
		if (last && !is_scalar_type(def) && !(val->kind == DN_SEQ && is_list_type(def))) {
			diag_error(d, &p, "'%.*s' is not a scalar", path, w->a);
			return -1;
		}
		if (last && is_scalar_type(def) && val->kind != DN_SCALAR) {
			diag_error(d, &val->pos, "'%.*s' takes a scalar, got a list", path, w->a);
			return -1;
		}
		if (!last && !is_list_type(def) && (!def || def->type != K_MAP)) {
			diag_error(d, &p, "'%s' is not in the deck", seg);
			return -1;
		}
		struct dnode *child = last ? val : NULL;
		if (!last && is_list_type(def)) {
			char *whole = xasprintf("%.*s", path, w->a);
			child = default_list(def, whole, col, d);
			free(whole);
			if (!child)
				return -1;
		} else if (!last) {
			child = dn_new(DN_MAP, &p);
		}
		dn_append(w->node, dn_new_scalar(seg, &p), child);
		i = w->node->n - 1;
	}
	w->def = def;
	w->sect = def ? def->sub : NULL;
	w->node = w->node->items[i];
	return 0;
}

/* 1 when some item of list n is a repeat block */
static int has_repeat(const struct dnode *n)
{
	for (int i = 0; i < n->n; i++)
		if (n->items[i]->kind == DN_MAP && dn_get(n->items[i], "repeat"))
			return 1;
	return 0;
}

/* Step from a list into the item named seg, or number seg.  Returns 1
 * when the name may be a copy a repeat block makes: the rest waits for
 * the builder (deck_set_repeated). */
static int step_list(struct setwalk *w, const char *seg, int col, struct diag *d)
{
	struct dnode *n = w->node;
	struct srcpos p = walk_pos(w, col);
	for (int i = 0; i < n->n; i++) {
		const char *name = dn_name(n->items[i]);
		if (name && strcmp(name, seg) == 0) {
			w->node = n->items[i];
			return 0;
		}
	}
	char *end;
	long k = strtol(seg, &end, 10);
	if (*seg && isdigit((unsigned char)*seg) && !*end && k < n->n) {
		w->node = n->items[k];
		if (w->node->kind != DN_MAP)
			w->sect = NULL;
		return 0;
	}
	if (w->def && w->def->type == K_LIST && has_repeat(n))
		return 1;
	struct suggest sg;
	char sug[160];
	suggest_init(&sg, seg);
	for (int i = 0; i < n->n; i++)
		if (dn_name(n->items[i]))
			suggest_add(&sg, dn_name(n->items[i]));
	diag_error(d, &p, "no list item named '%s' in '%.*s'%s", seg, col - 2, w->a,
		   suggest_text(&sg, sug, sizeof sug));
	return -1;
}

/* Keep assignment a, whose segment at name_at names no item of the list
 * at w, until the repeat blocks of that list are expanded. */
static void defer(struct deck *dk, const struct setwalk *w, const char *a, size_t name_at,
		  size_t keylen, struct dnode *val)
{
	dk->pend = xrealloc(dk->pend, (size_t)(dk->npend + 1) * sizeof(*dk->pend));
	struct set_pending *p = &dk->pend[dk->npend++];
	p->a = xstrdup(a);
	p->name_at = name_at;
	p->keylen = keylen;
	p->list = xasprintf("%.*s", (int)strcspn(a, "."), a);
	p->sect = w->sect;
	p->val = val;
	p->used = 0;
}

/* Replace the scalar the path a[start..keylen) leads to from w (or add
 * it); val is consumed. */
static int walk(struct deck *dk, struct setwalk w, const char *a, size_t start,
		size_t keylen, struct dnode *val, struct diag *d)
{
	while (start <= keylen) {
		size_t end = start;
		while (end < keylen && a[end] != '.')
			end++;
		char *seg = xasprintf("%.*s", (int)(end - start), a + start);
		int col = (int)start + 1, last = end >= keylen, rc;
		if (!*seg) {
			struct srcpos p = walk_pos(&w, col);
			diag_error(d, &p, "empty key in '%.*s'", (int)keylen, a);
			rc = -1;
		} else if (w.node->kind == DN_MAP) {
			rc = step_map(&w, seg, col, last, val, d);
			if (rc > 0) {	/* unset */
				free(seg);
				return 0;
			}
		} else if (w.node->kind == DN_SEQ && last && !val) {
			struct srcpos p = walk_pos(&w, col);
			diag_error(d, &p, "cannot unset an item of a list ('%.*s')", (int)keylen, a);
			rc = -1;
		} else if (w.node->kind == DN_SEQ) {
			rc = step_list(&w, seg, col, d);
			if (rc > 0 && dk) {
				free(seg);
				defer(dk, &w, a, start, keylen, val);
				return 0;
			} else if (rc > 0) {	/* no repeat within repeat */
				struct srcpos p = walk_pos(&w, col);
				diag_error(d, &p, "no list item named '%s'", seg);
				rc = -1;
			}
		} else {
			struct srcpos p = walk_pos(&w, 1);
			diag_error(d, &p, "'%.*s' is not a mapping or list", (int)start - 1, a);
			rc = -1;
		}
		free(seg);
		if (rc) {
			dn_free(val);
			return -1;
		}
		if (w.node == val)	/* added as a new key */
			return 0;
		start = end + 1;
	}
	if (val->kind == DN_SEQ) {
		if (w.node->kind != DN_SEQ && !is_list_type(w.def)) {
			diag_error(d, &val->pos, "'%.*s' takes a scalar, got a list", (int)keylen, a);
			dn_free(val);
			return -1;
		}
		/* the list replaces the node in place: swap, free the old */
		struct dnode old = *w.node;
		*w.node = *val;
		*val = old;
		dn_free(val);
		return 0;
	}
	if (w.node->kind != DN_SCALAR) {
		struct srcpos p = walk_pos(&w, 1);
		diag_error(d, &p, "'%.*s' is not a scalar", (int)keylen, a);
		dn_free(val);
		return -1;
	}
	free(w.node->str);
	w.node->str = val->str;
	w.node->quoted = val->quoted;
	w.node->pos = val->pos;
	val->str = NULL;
	dn_free(val);
	return 0;
}

int deck_set(struct deck *dk, const char *a, struct diag *d)
{
	const char *eq = strchr(a, '=');
	struct srcpos p = set_pos(1);
	if (!eq || eq == a) {
		diag_error(d, &p, "expected KEY=VALUE, got '%s'", a);
		return -1;
	}
	int vcol = (int)(eq - a) + 2;
	struct dnode *val;
	if (!eq[1]) {
		p.col = vcol;
		val = dn_new_scalar("", &p);
	} else if (!(val = dn_parse(eq + 1, strlen(eq + 1), set_file, 1, vcol, d))) {
		return -1;
	}
	if (val->kind == DN_MAP) {
		char buf[64];
		diag_error(d, &val->pos, "expected a scalar or a list value, got %s",
			   dn_describe(val, buf, sizeof buf));
		dn_free(val);
		return -1;
	}
	if (!dk->root || dk->root->kind != DN_MAP) {
		diag_error(d, &p, "cannot apply --set: the deck is not a mapping");
		dn_free(val);
		return -1;
	}
	struct setwalk w = { dk->root, &key_top, NULL, a, set_file };
	return walk(dk, w, a, 0, (size_t)(eq - a), val, d);
}

int deck_unset(struct deck *dk, const char *key, struct diag *d)
{
	struct srcpos p = { unset_file, 1, 1 };
	if (!*key || strchr(key, '=')) {
		diag_error(d, &p, "expected KEY for --unset, got '%s'", key);
		return -1;
	}
	if (!dk->root || dk->root->kind != DN_MAP) {
		diag_error(d, &p, "cannot apply --unset: the deck is not a mapping");
		return -1;
	}
	struct setwalk w = { dk->root, &key_top, NULL, key, unset_file };
	return walk(dk, w, key, 0, strlen(key), NULL, d);
}

int deck_set_repeated(struct deck *dk, const char *list, struct dnode *copy,
		      struct diag *d)
{
	const char *name = dn_name(copy);
	int rc = 0;
	for (int i = 0; name && i < dk->npend; i++) {
		struct set_pending *p = &dk->pend[i];
		size_t n = strlen(name);
		if (strcmp(p->list, list) != 0 || strncmp(p->a + p->name_at, name, n) != 0 ||
		    (p->a[p->name_at + n] != '.' && p->name_at + n != p->keylen))
			continue;
		p->used = 1;
		if (p->name_at + n == p->keylen) {
			struct srcpos q = { p->val ? set_file : unset_file, 1, (int)p->name_at + 1 };
			diag_error(d, &q, p->val ? "'%.*s' is not a scalar"
					       : "cannot unset an item of a list ('%.*s')",
				   (int)p->keylen, p->a);
			rc = -1;
			continue;
		}
		struct setwalk w = { copy, p->sect, key_find(&key_top, list), p->a,
				     p->val ? set_file : unset_file };
		if (walk(NULL, w, p->a, p->name_at + n + 1, p->keylen, dn_copy(p->val), d))
			rc = -1;
	}
	return rc;
}

int deck_set_unused(struct deck *dk, const char *list, const char *const *names, int n,
		    struct diag *d)
{
	int bad = 0;
	for (int i = 0; i < dk->npend; i++) {
		struct set_pending *p = &dk->pend[i];
		if (p->used || strcmp(p->list, list) != 0)
			continue;
		size_t len = strcspn(p->a + p->name_at, ".=");
		char *seg = xasprintf("%.*s", (int)len, p->a + p->name_at);
		struct suggest sg;
		char sug[160];
		suggest_init(&sg, seg);
		for (int k = 0; k < n; k++)
			suggest_add(&sg, names[k]);
		struct srcpos q = { p->val ? set_file : unset_file, 1, (int)p->name_at + 1 };
		diag_error(d, &q, "no list item named '%s' in '%s'%s", seg, list,
			   suggest_text(&sg, sug, sizeof sug));
		free(seg);
		bad++;
	}
	return bad;
}

int deck_apply(struct deck *dk, const char *a, struct diag *d)
{
	size_t n = strlen(DECK_UNSET_MARK);
	if (strncmp(a, DECK_UNSET_MARK, n) == 0)
		return deck_unset(dk, a + n, d);
	return deck_set(dk, a, d);
}
