/* xalloc.h - allocation that aborts with a message on exhaustion, and
 * allocating string formatting. */
#ifndef MBSIM_XALLOC_H
#define MBSIM_XALLOC_H

#include <stdarg.h>
#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap);

#endif
