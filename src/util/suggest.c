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

/* Levenshtein distance of the lower-cased strings, two rows; names are
 * short (a long word costs its length, which no limit accepts). */
int suggest_distance(const char *a, const char *b)
{
	int la = (int)strlen(a), lb = (int)strlen(b);
	if (la > 256 || lb > 256)
		return la + lb;
	int prev[257], cur[257];
	for (int j = 0; j <= lb; j++)
		prev[j] = j;
	for (int i = 1; i <= la; i++) {
		cur[0] = i;
		for (int j = 1; j <= lb; j++) {
			int sub = prev[j - 1] + (lower(a[i - 1]) != lower(b[j - 1]));
			int del = prev[j] + 1, ins = cur[j - 1] + 1;
			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, sizeof(int) * (size_t)(lb + 1));
	}
	return prev[lb];
}

/* 1 when the shorter of a, b (2 characters or more) begins the other,
 * ignoring case */
static int prefix(const char *a, const char *b)
{
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

void suggest_add(struct suggest *sg, const char *cand)
{
	if (strcmp(sg->word, cand) == 0)
		return;
	int len = (int)strlen(sg->word);
	int limit = len / 3 > 2 ? len / 3 : 2;
	int d = suggest_distance(sg->word, cand);
	if (d > limit || 2 * d > len) {
		if (!prefix(sg->word, cand))
			return;
		d = limit + 1 + d;	/* after every near miss by distance */
	}
	if (!sg->best || d < sg->dist) {
		sg->best = cand;
		sg->dist = d;
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
