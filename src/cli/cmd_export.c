/* cmd_export.c - mbsim export: views of output files for other programs
 * (ParaView through XDMF, io/xdmf.h; a CSV table, cmd_export_csv.c). */
#include "cli.h"
#include "usage.h"
#include "../io/xdmf.h"
#include "../util/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_export(int argc, char **argv)
{
	int xdmf = 0, quiet = 0, nf = 0, rc = EXIT_OK;
	long every = 0;	/* auto (xdmf.h) */
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--csv") == 0)
			return cmd_export_csv(argc, argv);
	const char **files = xcalloc((size_t)argc + 1, sizeof(char *));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int err = 0;
		if ((v = cli_optval(argc, argv, &i, "--every", USAGE_EXPORT, &err))) {
			char *end;
			errno = 0;
			every = strtol(v, &end, 10);
			if (errno || *end || end == v || every < 1) {
				cli_usage_error(USAGE_EXPORT, "--every wants an integer >= 1, got '%s'", v);
				free(files);
				return EXIT_USAGE;
			}
		} else if (err) {
			free(files);
			return EXIT_USAGE;
		} else if (strcmp(a, "--xdmf") == 0) {
			xdmf = 1;
		} else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
			quiet = 1;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			printf("usage: %s", USAGE_EXPORT);
			free(files);
			return EXIT_OK;
		} else if (a[0] == '-' && a[1]) {
			static const char *const opts[] = { "--xdmf", "--csv", "--every", "--quiet", "-q",
							    "--help", "-h", NULL };
			cli_usage_error(USAGE_EXPORT, "unknown option '%s'%s", a, cli_suggest(a, opts));
			free(files);
			return EXIT_USAGE;
		} else {
			files[nf++] = a;
		}
	}
	if (!xdmf || nf == 0) {
		cli_usage_error(USAGE_EXPORT, !xdmf ? "no format given (--xdmf or --csv)" : "no output file given");
		free(files);
		return EXIT_USAGE;
	}
	for (int k = 0; k < nf; k++) {
		char info[1200], err[600];
		if (xdmf_export(files[k], every, info, sizeof info, err, sizeof err)) {
			fprintf(stderr, "mbsim: error: %s: %s\n", files[k], err);
			rc = EXIT_SIM;
		} else if (!quiet) {
			fprintf(stderr, "mbsim: %s\n", info);
		}
	}
	free(files);
	return rc;
}
