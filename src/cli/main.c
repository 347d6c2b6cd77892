/* main.c - mbsim's command table. */
#include "cli.h"
#include "usage.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

struct cmd {
	const char *name;
	int (*fn)(int, char **);
};

static const struct cmd cmds[] = {
	{ "run", cmd_run },
	{ "check", cmd_check },
	{ "list", cmd_list },
	{ "help", cmd_help },
	{ "converge", cmd_converge },
	{ "compare", cmd_compare },
	{ "spectral", cmd_spectral },
	{ "static", cmd_static },
	{ "modes", cmd_modes },
	{ "linearize", cmd_linearize },
	{ "summary", cmd_summary },
	{ "export", cmd_export },
};

int main(int argc, char **argv)
{
#ifdef __GLIBC__
	/* Blocks of 128 kB and more always get pages of their own, given
	 * back when freed.  glibc's default raises that threshold to the
	 * size of each such block freed (up to 32 MB), so after set-up's
	 * first large temporary the next ones of a 1e5-body model come from
	 * the heap and leave holes there that the run keeps: 12 MB, 115
	 * bytes a body, at the peak of the pendulum array (bench/README.md). */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
	if (argc < 2) {
		fprintf(stderr, "usage: %s", USAGE_MBSIM);
		fprintf(stderr, "commands: run, check, list, converge, compare, spectral, static, modes, linearize, summary, export, help (see 'mbsim help')\n");
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
		if (argc > 2) {
			cli_usage_error(USAGE_MBSIM, "unexpected argument '%s' after %s", argv[2],
					argv[1]);
			return EXIT_USAGE;
		}
		printf("mbsim %s\n", MBSIM_VERSION);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return cmd_help(1, argv + 1);
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		if (strcmp(argv[1], cmds[i].name) == 0)
			return cmds[i].fn(argc - 1, argv + 1);
	const char *names[sizeof cmds / sizeof cmds[0] + 2];
	size_t n = 0;
	for (; n < sizeof cmds / sizeof cmds[0]; n++)
		names[n] = cmds[n].name;
	names[n++] = "--version";
	names[n] = NULL;
	fprintf(stderr, "mbsim: error: unknown command '%s'%s (see 'mbsim help')\n", argv[1],
		cli_suggest(argv[1], names));
	return EXIT_USAGE;
}
