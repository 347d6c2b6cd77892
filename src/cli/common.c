/* common.c - what the subcommands share: deck loading, messages. */
#include "cli.h"
#include "../deck/deck.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int cli_print_diag(const struct diag *d)
{
	for (int i = 0; i < d->n; i++) {
		char *s = diag_format(d, i);
		fprintf(stderr, "%s\n", s);
		free(s);
	}
	return d->nerr;
}

void cli_usage_error(const char *usage, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "mbsim: error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: %s", usage);
}

int cli_load(const char *path, char **sets, int nsets, struct deck **pdk,
	     struct model **m, struct sim_options *o)
{
	struct diag d;
	diag_init(&d);
	*m = NULL;
	struct deck *dk = deck_load(path, &d);
	if (dk) {
		for (int i = 0; i < nsets; i++)
			deck_set(dk, sets[i], &d);
		if (d.nerr == 0)
			deck_build(dk, m, o, &d);
	}
	int nerr = cli_print_diag(&d);
	diag_release(&d);
	if (nerr || !*m) {
		if (*m)
			model_free(m);
		deck_free(&dk);
		return EXIT_DECK;
	}
	*pdk = dk;
	return EXIT_OK;
}

void cli_json_str(const char *s)
{
	putchar('"');
	for (; *s; s++)
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else
			putchar(*s);
	putchar('"');
}

void cli_json_num(double x)
{
	if (isfinite(x))
		printf("%.6g", x);
	else
		printf("null");
}
