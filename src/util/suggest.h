/* suggest.h - "did you mean" for names typed by a user: deck keys,
 * parameters, element names, integrators (deck/), commands, options and
 * list topics (cli/).
 *
 * A candidate is close when, compared case-insensitively, its Levenshtein
 * distance to the word is at most max(2, len/3) and at most half the
 * word's length ("xy" is no typo of "hi"), or when one is a prefix of the
 * other and the shorter has at least 2 characters ("--out" for "--output",
 * "joint" for "joints").  The closest wins; a prefix counts after every
 * candidate within the distance limit; ties keep the first added.
 */
#ifndef MBSIM_SUGGEST_H
#define MBSIM_SUGGEST_H

#include <stddef.h>

struct suggest {
	const char *word;
	const char *best;
	int dist;
};

void suggest_init(struct suggest *sg, const char *word);
void suggest_add(struct suggest *sg, const char *cand);
/* " (did you mean 'x'?)" or "" in buf. */
const char *suggest_text(struct suggest *sg, char *buf, size_t size);
/* Case-insensitive Levenshtein distance. */
int suggest_distance(const char *a, const char *b);

#endif
