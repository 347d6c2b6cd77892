/* tree.c - YAML text -> struct dnode tree with positions (libyaml events). */
#include "tree.h"
#include "../util/interrupt.h"
#include "../util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* What the recursive event reader needs besides the parser itself. */
struct reader {
	yaml_parser_t p;
	const char *text;	/* the input, for what stands at an error */
	size_t len;
	const char *file;
	int line0, col0;
	struct diag *d;
	int depth;		/* collections open around the current event */
};

struct dnode *dn_new(enum dn_kind kind, const struct srcpos *pos)
{
	struct dnode *n = xcalloc(1, sizeof(*n));
	n->kind = kind;
	if (pos)
		n->pos = *pos;
	return n;
}

struct dnode *dn_new_scalar(const char *s, const struct srcpos *pos)
{
	struct dnode *n = dn_new(DN_SCALAR, pos);
	n->str = xstrdup(s);
	return n;
}

void dn_append(struct dnode *n, struct dnode *key, struct dnode *val)
{
	if (n->n == n->cap) {
		n->cap = n->cap ? 2 * n->cap : 4;
		n->items = xrealloc(n->items, (size_t)n->cap * sizeof(*n->items));
		if (n->kind == DN_MAP)
			n->keys = xrealloc(n->keys, (size_t)n->cap * sizeof(*n->keys));
	}
	if (n->kind == DN_MAP)
		n->keys[n->n] = key;
	n->items[n->n++] = val;
}

void dn_free(struct dnode *n)
{
	if (!n)
		return;
	for (int i = 0; i < n->n; i++) {
		if (n->kind == DN_MAP)
			dn_free(n->keys[i]);
		dn_free(n->items[i]);
	}
	free(n->keys);
	free(n->items);
	free(n->str);
	free(n);
}

struct dnode *dn_copy(const struct dnode *n)
{
	if (!n)
		return NULL;
	struct dnode *c = dn_new(n->kind, &n->pos);
	c->quoted = n->quoted;
	if (n->str)
		c->str = xstrdup(n->str);
	for (int i = 0; i < n->n; i++)
		dn_append(c, n->kind == DN_MAP ? dn_copy(n->keys[i]) : NULL,
			  dn_copy(n->items[i]));
	return c;
}

int dn_find(const struct dnode *map, const char *key)
{
	if (!map || map->kind != DN_MAP)
		return -1;
	for (int i = 0; i < map->n; i++)
		if (strcmp(map->keys[i]->str, key) == 0)
			return i;
	return -1;
}

const struct dnode *dn_get(const struct dnode *map, const char *key)
{
	int i = dn_find(map, key);
	return i < 0 ? NULL : map->items[i];
}

const char *dn_name(const struct dnode *item)
{
	const struct dnode *v = dn_get(item, "name");
	return v && v->kind == DN_SCALAR ? v->str : NULL;
}

const char *dn_describe(const struct dnode *n, char *buf, size_t size)
{
	if (n->kind == DN_MAP)
		snprintf(buf, size, "a mapping");
	else if (n->kind == DN_SEQ)
		snprintf(buf, size, "a list");
	else if (strlen(n->str) > 40)
		snprintf(buf, size, "'%.37s...'", n->str);
	else
		snprintf(buf, size, "'%s'", n->str);
	return buf;
}

static struct srcpos mark_pos(const struct reader *r, yaml_mark_t mk)
{
	struct srcpos p = { r->file, r->line0 + (int)mk.line,
			    r->col0 + (int)mk.column };
	return p;
}

/* The byte offset in the input of libyaml's mark: its line, then its
 * column in characters (libyaml counts characters, not bytes, in index
 * and column, so a multi-byte character such as a section sign in a comment
 * above would shift index) */
static size_t mark_offset(const struct reader *r, yaml_mark_t mk)
{
	size_t at = 0;
	for (size_t line = 0; line < mk.line && at < r->len; at++)
		if (r->text[at] == '\n')
			line++;
	for (size_t col = 0; col < mk.column && at < r->len; col++)
		do
			at++;
		while (at < r->len && ((unsigned char)r->text[at] & 0xc0) == 0x80);
	return at;
}

/* 1 when the indentation of the line holding byte offset at contains a
 * tab (YAML indents with spaces only) */
static int tab_indent(const struct reader *r, size_t at)
{
	if (at > r->len)
		return 0;
	size_t b = at;
	while (b > 0 && r->text[b - 1] != '\n')
		b--;
	for (; b < r->len && (r->text[b] == ' ' || r->text[b] == '\t'); b++)
		if (r->text[b] == '\t')
			return 1;
	return 0;
}

/* What to change, for the problems libyaml reports in decks people write
 * by hand; NULL for the others (reported in libyaml's words). */
static const char *what_to_change(const struct reader *r)
{
	const char *pr = r->p.problem ? r->p.problem : "";
	size_t at = mark_offset(r, r->p.problem_mark);
	if (tab_indent(r, at) ||
	    (strstr(pr, "cannot start any token") && at < r->len && r->text[at] == '\t'))
		return "a tab in the indentation: YAML indents with spaces only; replace the "
		       "tab by spaces";
	if (strstr(pr, "did not find expected key"))
		return "bad indentation: this line is indented differently from the keys "
		       "of the mapping it belongs to; give the keys of one mapping the same "
		       "indentation";
	if (strstr(pr, "did not find expected '-' indicator"))
		return "bad indentation: the keys of a list item line up under its first "
		       "key, and the next item starts with '- ' under the '-' above";
	if (strstr(pr, "mapping values are not allowed"))
		return "unexpected ':': a key indented deeper than the key before it, or a "
		       "value containing ': ' (indent the key like its neighbours, or quote "
		       "the value)";
	if (strstr(pr, "did not find expected ',' or '}'"))
		return "a '{' mapping is not closed: add the '}' (and ', ' between its "
		       "entries)";
	if (strstr(pr, "did not find expected ',' or ']'"))
		return "a '[' list is not closed: add the ']' (and ', ' between its items)";
	if (strstr(pr, "could not find expected ':'"))
		return "a key without ':': write 'key: value'";
	if (strstr(pr, "unexpected end of stream") && r->p.context &&
	    strstr(r->p.context, "quoted scalar"))
		return "a quoted string is not closed: add the closing quote";
	return NULL;
}

/* Report the parser's error: what to change (or the problem) at its
 * mark, and the context (e.g. "while parsing a block mapping") as a note
 * where that construct began. */
static void syntax_error(struct reader *r)
{
	struct srcpos at = mark_pos(r, r->p.problem_mark);
	const char *problem = r->p.problem ? r->p.problem : "invalid yaml";
	const char *fix = what_to_change(r);
	if (fix)
		diag_error(r->d, &at, "%s (yaml: %s)", fix, problem);
	else
		diag_error(r->d, &at, "%s", problem);
	static const char *const where[][2] = {
		{ "while parsing a block collection", "the list begins here" },
		{ "while parsing a block mapping", "the mapping begins here" },
		{ "while parsing a flow mapping", "the '{' is here" },
		{ "while parsing a flow sequence", "the '[' is here" },
		{ "while scanning a quoted scalar", "the string begins here" },
		{ "while scanning for the next token", NULL },	/* at the error itself */
	};
	if (r->p.context) {
		struct srcpos cx = mark_pos(r, r->p.context_mark);
		const char *note = r->p.context;
		for (size_t i = 0; fix && i < sizeof where / sizeof where[0]; i++)
			if (strcmp(note, where[i][0]) == 0)
				note = where[i][1];
		if (note)
			diag_note(r->d, &cx, "%s", note);
	}
}

static int next_event(struct reader *r, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&r->p, ev)) {
		syntax_error(r);
		return -1;
	}
	return 0;
}

static struct dnode *read_node(struct reader *r, yaml_event_t *ev);

/* Read the children of a collection until its end event. */
static int read_children(struct reader *r, struct dnode *n, yaml_event_type_t end)
{
	for (;;) {
		yaml_event_t ev;
		if (next_event(r, &ev))
			return -1;
		if (interrupted()) {
			struct srcpos p = mark_pos(r, ev.start_mark);
			diag_error(r->d, &p, "interrupted while reading the deck");
			yaml_event_delete(&ev);
			return -1;
		}
		if (ev.type == end) {
			yaml_event_delete(&ev);
			return 0;
		}
		struct dnode *key = NULL, *val;
		if (n->kind == DN_MAP) {
			key = read_node(r, &ev);
			if (!key)
				return -1;
			if (key->kind != DN_SCALAR) {
				diag_error(r->d, &key->pos, "mapping keys must be scalars");
				dn_free(key);
				return -1;
			}
			if (next_event(r, &ev)) {
				dn_free(key);
				return -1;
			}
		}
		val = read_node(r, &ev);
		if (!val) {
			dn_free(key);
			return -1;
		}
		dn_append(n, key, val);
	}
}

/* Build the node that starts with event ev (consumed). */
static struct dnode *read_node(struct reader *r, yaml_event_t *ev)
{
	struct srcpos pos = mark_pos(r, ev->start_mark);
	struct dnode *n = NULL;
	int rc = 0;

	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		/* a NUL ("\0" in a quoted scalar) would end the text early:
		 * "1\0+1" read as 1 */
		if (memchr(ev->data.scalar.value, 0, ev->data.scalar.length)) {
			diag_error(r->d, &pos, "a NUL character inside a value (\\0 in a quoted "
				   "string): the text would end there");
			rc = -1;
			break;
		}
		n = dn_new_scalar((const char *)ev->data.scalar.value, &pos);
		n->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
		break;
	case YAML_MAPPING_START_EVENT:
	case YAML_SEQUENCE_START_EVENT:
		/* stop before libyaml and this recursion see all of a deeply
		 * nested text (50 000 levels overflowed the stack) */
		if (r->depth >= DN_MAX_DEPTH) {
			diag_error(r->d, &pos, "yaml nested deeper than %d levels",
				   DN_MAX_DEPTH);
			rc = -1;
			break;
		}
		r->depth++;
		if (ev->type == YAML_MAPPING_START_EVENT) {
			n = dn_new(DN_MAP, &pos);
			rc = read_children(r, n, YAML_MAPPING_END_EVENT);
		} else {
			n = dn_new(DN_SEQ, &pos);
			rc = read_children(r, n, YAML_SEQUENCE_END_EVENT);
		}
		r->depth--;
		break;
	case YAML_ALIAS_EVENT:
		diag_error(r->d, &pos, "yaml aliases are not supported");
		rc = -1;
		break;
	default:
		diag_error(r->d, &pos, "unexpected yaml event");
		rc = -1;
		break;
	}
	yaml_event_delete(ev);
	if (rc) {
		dn_free(n);
		return NULL;
	}
	return n;
}

/* Skip stream and document starts; return the root node, or an empty map
 * when the stream has no document or an empty one. */
static struct dnode *read_root(struct reader *r)
{
	for (;;) {
		yaml_event_t ev;
		if (next_event(r, &ev))
			return NULL;
		switch (ev.type) {
		case YAML_STREAM_START_EVENT:
		case YAML_DOCUMENT_START_EVENT:
			yaml_event_delete(&ev);
			continue;
		case YAML_STREAM_END_EVENT:
		case YAML_DOCUMENT_END_EVENT: {
			struct srcpos p = { r->file, r->line0, r->col0 };
			yaml_event_delete(&ev);
			return dn_new(DN_MAP, &p);
		}
		default:
			return read_node(r, &ev);
		}
	}
}

struct dnode *dn_parse(const char *text, size_t len, const char *file,
		       int line0, int col0, struct diag *d)
{
	struct reader r = { .text = text, .len = len, .file = file, .line0 = line0,
			    .col0 = col0, .d = d };
	if (!yaml_parser_initialize(&r.p)) {
		diag_error(d, NULL, "cannot initialize the yaml parser");
		return NULL;
	}
	yaml_parser_set_input_string(&r.p, (const unsigned char *)text, len);
	struct dnode *root = read_root(&r);
	yaml_parser_delete(&r.p);
	return root;
}
