/* suggest.c - "did you mean" (suggest.h). */
#include "suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int lower(char c)
{
	return tolower((unsigned char)c);
}

/* Optimal-string-alignment distance of the lower-cased strings: the
 * Levenshtein distance with a swap of two neighbours counting 1 ("lsit",
 * "rnu").  Three rows; names are short (a long word costs its length,
 * which no limit accepts). */
int suggest_distance(const char *a, const char *b)
{
	int la = (int)strlen(a), lb = (int)strlen(b);
	if (la > 256 || lb > 256)
		return la + lb;
	int r2[257], r1[257], r0[257];	/* rows i-2, i-1, i */
	for (int j = 0; j <= lb; j++)
		r1[j] = j;
	for (int i = 1; i <= la; i++) {
		r0[0] = i;
		for (int j = 1; j <= lb; j++) {
			int ca = lower(a[i - 1]), cb = lower(b[j - 1]);
			int sub = r1[j - 1] + (ca != cb);
			int del = r1[j] + 1, ins = r0[j - 1] + 1;
			int d = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
			if (i > 1 && j > 1 && ca == lower(b[j - 2]) && lower(a[i - 2]) == cb &&
			    r2[j - 2] + 1 < d)
				d = r2[j - 2] + 1;
			r0[j] = d;
		}
		memcpy(r2, r1, sizeof(int) * (size_t)(lb + 1));
		memcpy(r1, r0, sizeof(int) * (size_t)(lb + 1));
	}
	return r1[lb];
}

/* 1 when the shorter of a, b begins the other, ignoring case and the
 * leading dashes of options, and has at least 2 characters besides them */
static int prefix(const char *a, const char *b)
{
	while (*a == '-')
		a++;
	while (*b == '-')
		b++;
	size_t la = strlen(a), lb = strlen(b), n = la < lb ? la : lb;
	if (n < 2)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (lower(a[i]) != lower(b[i]))
			return 0;
	return 1;
}

void suggest_init(struct suggest *sg, const char *word)
{
	sg->word = word;
	sg->best = NULL;
	sg->dist = 0;
}

/* 1 when many is the English plural of one in -ies ("body", "bodies") */
static int plural(const char *one, const char *many)
{
	size_t n = strlen(one);
	if (n < 2 || strlen(many) != n + 2 || lower(one[n - 1]) != 'y')
		return 0;
	for (size_t i = 0; i + 1 < n; i++)
		if (lower(one[i]) != lower(many[i]))
			return 0;
	return lower(many[n - 1]) == 'i' && lower(many[n]) == 'e' && lower(many[n + 1]) == 's';
}

/* Score: 0 for a word that differs only in case, then prefixes by
 * distance, then other near misses by distance (SCORE_NEAR + d). */
#define SCORE_NEAR 1000

void suggest_add(struct suggest *sg, const char *cand)
{
	if (strcmp(sg->word, cand) == 0)
		return;
	int len = (int)strlen(sg->word);
	int limit = len / 3 > 2 ? len / 3 : 2;
	int d = suggest_distance(sg->word, cand), score;
	if (plural(sg->word, cand) || plural(cand, sg->word))
		score = 1;
	else if (d == 0 || prefix(sg->word, cand))
		score = d;
	else if (d <= limit && 2 * d <= len)
		score = SCORE_NEAR + d;
	else
		return;
	if (!sg->best || score < sg->dist) {
		sg->best = cand;
		sg->dist = score;
	}
}

const char *suggest_text(struct suggest *sg, char *buf, size_t size)
{
	if (sg->best)
		snprintf(buf, size, " (did you mean '%s'?)", sg->best);
	else
		snprintf(buf, size, "%s", "");
	return buf;
}
