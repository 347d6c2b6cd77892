/* cmd_misc.c - mbsim check, list, help. */
#include "cli.h"
#include "usage.h"
#include "../deck/deck.h"
#include "../integ/registry.h"
#include "../sim/mobility.h"
#include "../model/beam.h"
#include "../util/vec.h"
#include "../sim/sim.h"
#include "../util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One line per valid deck: the mobility from the rank of Phi_q (the
 * Grübler count 6 n_b - n_c is wrong for redundant constraints). */
static int print_mobility(const char *deck, const struct model *m, const struct sim_options *o)
{
	struct mobility mo;
	int fail = mobility_compute(m, o->t0, &mo);
	printf("%s: %d bod%s", deck, m->nbodies, m->nbodies == 1 ? "y" : "ies");
	if (m->nparticles > 0)	/* a particle's inert rotation is no coordinate */
		printf(" (%d rigid, %d particle%s)", m->nbodies - m->nparticles, m->nparticles,
		       m->nparticles == 1 ? "" : "s");
	printf(", %d coordinate%s, %d constraint row%s; ", mo.ncoord, mo.ncoord == 1 ? "" : "s",
	       mo.nrows, mo.nrows == 1 ? "" : "s");
	if (fail) {
		printf("Grübler count %d; mobility not computed: %s\n", mo.grubler, mo.why);
		return 0;
	}
	printf("mobility %d (rank of the constraint Jacobian %d at the assembled initial "
	       "configuration; Grübler count %d)", mo.mobility, mo.rank, mo.grubler);
	int nd = mo.nrows - mo.rank;
	for (int i = 0; i < nd && i < 6; i++) {
		char what[256];
		model_row_name(m, mo.dependent[i], what, sizeof what);
		printf("%s%s", i ? ", " : (nd > 1 ? "; dependent rows: " : "; dependent row: "),
		       what);
	}
	printf("%s\n", nd > 6 ? ", ..." : "");
	struct diag dg;
	diag_init(&dg);
	int bad = mobility_refuse_drivers(m, &mo, &dg);
	cli_print_diag(&dg);
	diag_release(&dg);
	mobility_release(&mo);
	/* the beams' meshes (their nodes are among the bodies counted) */
	for (int i = 0; i < m->nbeams; i++) {
		const struct beam *bm = &m->beams[i];
		const struct body *n0 = &m->bodies[bm->node0], *n1 = &m->bodies[bm->node0 + 2 * bm->nel];
		double d[3];
		v3_sub(d, n1->r0, n0->r0);
		printf("  beam '%s': %d element%s, %d nodes (bodies '%s' ... '%s'), length %g m\n",
		       bm->name, bm->nel, bm->nel == 1 ? "" : "s", 2 * bm->nel + 1, n0->name,
		       n1->name, v3_norm(d));
	}
	return bad;
}

int cmd_check(int argc, char **argv)
{
	static const char *const opts[] = { "--set", "--unset", "--help", "-h", NULL };
	char **sets = xcalloc((size_t)argc + 1, sizeof(char *));
	char **decks = xcalloc((size_t)argc + 1, sizeof(char *));
	int nsets = 0, ndecks = 0, bad = 0, rc = EXIT_OK;
	for (int i = 1; i < argc; i++) {
		int err = 0;
		if (cli_setopt(argc, argv, &i, USAGE_CHECK, &err, sets, &nsets)) {
		} else if (err) {
			rc = EXIT_USAGE;
			goto out;
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			printf("usage: %s", USAGE_CHECK);
			goto out;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			cli_usage_error(USAGE_CHECK, "unknown option '%s'%s", argv[i],
					cli_suggest(argv[i], opts));
			rc = EXIT_USAGE;
			goto out;
		} else {
			decks[ndecks++] = argv[i];
		}
	}
	if (ndecks == 0) {
		cli_usage_error(USAGE_CHECK, "no deck given");
		rc = EXIT_USAGE;
		goto out;
	}
	for (int i = 0; i < ndecks; i++) {
		struct deck *dk = NULL;
		struct model *m = NULL;
		struct sim_options o;
		if (cli_load(decks[i], sets, nsets, &dk, &m, &o)) {
			bad++;
			continue;
		}
		bad += print_mobility(decks[i], m, &o) > 0;
		model_free(&m);
		deck_free(&dk);
	}
	rc = bad ? EXIT_DECK : EXIT_OK;
out:
	cli_sets_free(sets, nsets);
	free(decks);
	return rc;
}

int cmd_list(int argc, char **argv)
{
	static const char *const topics[] = { "integrators", "joints", "forces", "keys", NULL };
	const char *what = argc > 1 ? argv[1] : "";
	if (argc > 2) {
		cli_usage_error(USAGE_LIST, "unexpected argument '%s' (one list at a time)", argv[2]);
		return EXIT_USAGE;
	}
	if (strcmp(what, "integrators") == 0) {
		for (int i = 0; i < INTEG_COUNT; i++) {
			const struct integ_info *r = &integ_table[i];
			/* design order; measured on constrained positions at
			 * integrator.index 3 and 2 (registry.def) */
			char o2[8] = "-";
			if (r->order2)
				snprintf(o2, sizeof o2, "%d", r->order2);
			/* the contact models it takes (integ_check_contact):
			 * the smooth one is a force and goes with every scheme */
			printf("%-16s %-16s %-3s order %d (constrained: %d, index 2: %s, contact: %s)"
			       "  %s%s\n", r->name, r->family, r->formulation, r->order, r->order3,
			       o2, r->ops->nonsmooth ? "smooth, nonsmooth" : "smooth",
			       r->adaptive ? "adaptive, " : "", r->help);
		}
	} else if (strcmp(what, "joints") == 0) {
		for (int i = 0; i < JOINT_NTYPES; i++)
			printf("%-14s %d row%s  %s\n", joint_type_names[i], joint_type_rows[i],
			       joint_type_rows[i] == 1 ? " " : "s", joint_type_help[i]);
	} else if (strcmp(what, "forces") == 0) {
		for (int i = 0; i < FORCE_NTYPES; i++)
			printf("%-10s %s\n", force_type_names[i], force_type_help[i]);
	} else if (strcmp(what, "keys") == 0) {
		deck_print_keys(stdout);
	} else {
		if (what[0])
			cli_usage_error(USAGE_LIST, "unknown list '%s'%s", what,
					cli_suggest(what, topics));
		else
			cli_usage_error(USAGE_LIST, "what to list?");
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int cmd_help(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";
	if (argc > 2) {
		cli_usage_error(USAGE_HELP, "unexpected argument '%s'", argv[2]);
		return EXIT_USAGE;
	}
	if (!c[0]) {
		printf("usage: %s", USAGE_MBSIM);
		printf("\ncommands:\n"
		       "  run       simulate a deck and write an HDF5 file\n"
		       "  check     validate decks, reporting every error\n"
		       "  list      list integrators, joints, forces or deck keys\n"
		       "  converge  convergence-order study of a deck over step sizes\n"
		       "  compare   compare two output files with tolerances\n"
		       "  spectral  spectral radius, amplitude decay, period elongation of a scheme\n"
		       "  static    static equilibrium, reactions and residual of a deck\n"
		       "  modes     natural frequencies and damping ratios at the static equilibrium\n"
		       "  linearize state-space matrices A, B, C, D in minimal coordinates\n"
		       "  summary   one CSV row (or JSON object) per result file, for sweeps\n"
		       "  export    an output file for ParaView (XDMF)\n"
		       "  help      show a command's synopsis\n"
		       "\nexit status: 0 success, 1 simulation failed or interrupted, "
		       "2 invalid deck, 64 usage error\n"
		       "manuals: mbsim(1), mbsim-run(1), mbsim-converge(1), mbsim-compare(1),\n"
		       "         mbsim-spectral(1), mbsim-static(1), mbsim-modes(1), mbsim-linearize(1),\n"
		       "         mbsim-summary(1), mbsim-export(1), mbsim-deck(5), mbsim-output(5), mbsim-workflows(7)\n");
		return EXIT_OK;
	}
	struct { const char *n, *u; } t[] = {
		{ "run", USAGE_RUN }, { "check", USAGE_CHECK }, { "list", USAGE_LIST },
		{ "help", USAGE_HELP }, { "converge", USAGE_CONVERGE },
		{ "compare", USAGE_COMPARE }, { "spectral", USAGE_SPECTRAL },
		{ "static", USAGE_STATIC }, { "modes", USAGE_MODES },
		{ "linearize", USAGE_LINEARIZE },
		{ "summary", USAGE_SUMMARY }, { "export", USAGE_EXPORT },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (strcmp(c, t[i].n) == 0) {
			printf("usage: %s", t[i].u);
			return EXIT_OK;
		}
	const char *names[sizeof t / sizeof t[0] + 1];
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		names[i] = t[i].n;
	names[sizeof t / sizeof t[0]] = NULL;
	fprintf(stderr, "mbsim: error: no help for '%s'%s\n", c, cli_suggest(c, names));
	return EXIT_USAGE;
}
