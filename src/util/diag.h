/* diag.h - diagnostic records: errors collected by lower layers, printed by cli/.
 *
 * Lower layers never print. They append to a struct diag; the command line
 * prints every record as "FILE:LINE:COL: error: message" (deck errors) or
 * "mbsim: error: message" (records without a source position).
 */
#ifndef MBSIM_DIAG_H
#define MBSIM_DIAG_H

#include <stdarg.h>

/* A position in a source file; line and col are 1-based, 0 when unknown. */
struct srcpos {
	const char *file;	/* borrowed: owned by the deck */
	int line, col;
};

struct diag_rec {
	struct srcpos pos;
	int is_note;		/* 1: "note:", 0: "error:" */
	char *msg;
};

struct diag {
	struct diag_rec *rec;
	int n, cap;
	int nerr;		/* number of records that are errors */
};

void diag_init(struct diag *d);
void diag_release(struct diag *d);
/* Append an error at pos (pos may be NULL). printf-style. */
void diag_error(struct diag *d, const struct srcpos *pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void diag_note(struct diag *d, const struct srcpos *pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void diag_verror(struct diag *d, const struct srcpos *pos, int is_note,
		 const char *fmt, va_list ap);
/* Format record i as one line (no newline) into a malloc'd string. */
char *diag_format(const struct diag *d, int i);

#endif
