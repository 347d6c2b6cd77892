/* tree.h - the deck's YAML document as a tree of positioned nodes.
 *
 * Internal to deck/. Scalars keep their text and whether they were
 * quoted; mappings keep their key nodes (for positions of unknown keys)
 * in order, duplicates included (the builder reports those).
 */
#ifndef MBSIM_DECK_TREE_H
#define MBSIM_DECK_TREE_H

#include <stddef.h>

#include "../util/diag.h"

enum dn_kind { DN_SCALAR, DN_MAP, DN_SEQ };

struct dnode {
	enum dn_kind kind;
	struct srcpos pos;
	char *str;		/* DN_SCALAR: text */
	int quoted;		/* DN_SCALAR: 1 if not a plain scalar */
	int n, cap;
	struct dnode **keys;	/* DN_MAP: key scalars, parallel to items */
	struct dnode **items;	/* DN_MAP: values; DN_SEQ: elements */
};

/* The deepest nesting of mappings and lists a deck may have (the
 * shipped decks need 5): deeper text is an error, found while parsing. */
#define DN_MAX_DEPTH 64

/* Parse the first YAML document of text. Positions are (line0 + line,
 * col0 + column) with libyaml's 0-based marks; file is borrowed. NULL with
 * records in d on a syntax error; an empty document gives an empty map. */
struct dnode *dn_parse(const char *text, size_t len, const char *file,
		       int line0, int col0, struct diag *d);
void dn_free(struct dnode *n);
struct dnode *dn_copy(const struct dnode *n);
struct dnode *dn_new(enum dn_kind kind, const struct srcpos *pos);
struct dnode *dn_new_scalar(const char *s, const struct srcpos *pos);
/* Append (key, value) to a map or value to a sequence (key NULL). */
void dn_append(struct dnode *n, struct dnode *key, struct dnode *val);

/* Map lookup: index of the first entry with that key, or -1. */
int dn_find(const struct dnode *map, const char *key);
/* Value of key in map, or NULL (also NULL when map is not a map). */
const struct dnode *dn_get(const struct dnode *map, const char *key);
/* The 'name' scalar text of a map item, or NULL. */
const char *dn_name(const struct dnode *item);
/* How a node reads in "got ..." messages: "a mapping", "a list", or the
 * scalar text quoted. Returns buf. */
const char *dn_describe(const struct dnode *n, char *buf, size_t size);

#endif
