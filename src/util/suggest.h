/* suggest.h - "did you mean" for names typed by a user: deck keys,
 * parameters, element names, integrators (deck/), commands, options and
 * list topics (cli/).
 *
 * A candidate is close when, compared case-insensitively, one of word
 * and candidate begins the other (leading dashes aside, at least 2
 * characters: "--out" for "--output", "joint" for "joints"), or is its
 * plural in -ies ("body" for "bodies"), or when its
 * edit distance (Levenshtein, a swap of neighbours counting 1) to the word is at most max(2, len/3) and at most
 * half the word's length ("xy" is no typo of "hi").  A word that differs
 * only in case wins, then prefixes and plurals, then the other near misses, each by
 * distance; ties keep the first added.
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
/* Case-insensitive edit distance: insertions, deletions, substitutions
 * and swaps of neighbours (optimal string alignment). */
int suggest_distance(const char *a, const char *b);

#endif
