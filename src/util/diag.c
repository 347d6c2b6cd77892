/* diag.c - see diag.h */
#include "diag.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void diag_init(struct diag *d)
{
	memset(d, 0, sizeof(*d));
}

void diag_release(struct diag *d)
{
	for (int i = 0; i < d->n; i++)
		free(d->rec[i].msg);
	free(d->rec);
	memset(d, 0, sizeof(*d));
}

void diag_verror(struct diag *d, const struct srcpos *pos, int is_note,
		 const char *fmt, va_list ap)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 8;
		d->rec = xrealloc(d->rec, (size_t)d->cap * sizeof(*d->rec));
	}
	struct diag_rec *r = &d->rec[d->n++];
	memset(r, 0, sizeof(*r));
	if (pos)
		r->pos = *pos;
	r->is_note = is_note;
	r->msg = xvasprintf(fmt, ap);
	if (!is_note)
		d->nerr++;
}

void diag_error(struct diag *d, const struct srcpos *pos, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(d, pos, 0, fmt, ap);
	va_end(ap);
}

void diag_note(struct diag *d, const struct srcpos *pos, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(d, pos, 1, fmt, ap);
	va_end(ap);
}

char *diag_format(const struct diag *d, int i)
{
	const struct diag_rec *r = &d->rec[i];
	const char *kind = r->is_note ? "note" : "error";
	if (r->pos.file && r->pos.line > 0)
		return xasprintf("%s:%d:%d: %s: %s", r->pos.file, r->pos.line,
				 r->pos.col, kind, r->msg);
	if (r->pos.file)
		return xasprintf("%s: %s: %s", r->pos.file, kind, r->msg);
	return xasprintf("mbsim: %s: %s", kind, r->msg);
}
