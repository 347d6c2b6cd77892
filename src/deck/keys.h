/* keys.h - the table of every key a deck may contain.
 *
 * One table drives validation (unknown keys, wrong types), --set (which
 * missing keys may be added), `mbsim list keys` and the schema test, so
 * they cannot drift apart. Internal to deck/.
 */
#ifndef MBSIM_DECK_KEYS_H
#define MBSIM_DECK_KEYS_H

#include <stdio.h>

#include "../util/suggest.h"

enum key_type {
	K_NUM,		/* number or expression */
	K_INT,		/* integer or expression with an integral value */
	K_BOOL,
	K_STR,
	K_VEC3,		/* list of 3 numbers */
	K_NUMLIST,	/* list of numbers */
	K_MAT3,		/* 3x3 list of rows */
	K_MAT6,		/* 6x6 list of rows */
	K_INERTIA,	/* K_VEC3 or K_MAT3 */
	K_MAP,		/* mapping described by sub */
	K_LIST,		/* list of mappings described by sub */
	K_FREE		/* mapping name -> number (parameters) */
};

struct key_sect;

struct key_def {
	const char *name;
	enum key_type type;
	unsigned mask;			/* element types (bit per enum value) it
					 * applies to; 0 = every type */
	const struct key_sect *sub;	/* K_MAP, K_LIST */
	const char *help;
};

struct key_sect {
	const char *noun;		/* "body": "unknown key 'x' in body" */
	const struct key_def *keys;	/* terminated by name == NULL */
};

extern const struct key_sect key_top;

const struct key_def *key_find(const struct key_sect *s, const char *name);
/* Section of the mapping or list items under key name of s. */
const struct key_sect *key_sub(const struct key_sect *s, const char *name);

/* Suggestion among the keys of a section. */
const char *key_suggest(const struct key_sect *s, const char *word, char *buf,
			size_t size);

/* The default of a list key (K_VEC3 ...) as deck text in buf ("(default
 * 0)" of a vector is [0, 0, 0]): 0, or -1 when its help states no list
 * (--set completes a missing vector from it). */
int key_default_list(const struct key_def *def, char *buf, size_t n);

/* Walk every leaf key path (see deck_print_keys). */
void keys_print(FILE *f, const struct key_sect *s, const char *prefix);

#endif
