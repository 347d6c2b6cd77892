/* usage.h - synopsis lines of every command.  The man pages' SYNOPSIS
 * sections must say the same (tests/t-usage.sh keeps them equal). */
#ifndef MBSIM_USAGE_H
#define MBSIM_USAGE_H

#define USAGE_MBSIM \
	"mbsim COMMAND [ARGS]...\n" \
	"mbsim --version\n"
#define USAGE_RUN \
	"mbsim run DECK [-o FILE.h5 [--force]] [--set KEY=VALUE]... [--unset KEY]... [--from-static]\n" \
	"          [--excite-mode K [--amplitude A]] [--restart FILE.h5[@T]] [--xdmf] [--quiet]\n" \
	"          [--json] [--assess-error]\n"
#define USAGE_CHECK \
	"mbsim check [--set KEY=VALUE]... [--unset KEY]... DECK...\n"
#define USAGE_LIST \
	"mbsim list integrators|joints|forces|keys\n"
#define USAGE_CONVERGE \
	"mbsim converge DECK --steps H1,H2,... [--quantity PATH[:x|y|z|w|INDEX]]...\n" \
	"               [--reference auto|FILE.h5|kinematic] [--set KEY=VALUE]... [--unset KEY]...\n" \
	"               [--expect-order P[:TOL]] [--json|--csv] [--quiet]\n"
#define USAGE_COMPARE \
	"mbsim compare A.h5 B.h5 [--rtol R] [--atol A] [--tol PATH=RTOL:ATOL]...\n" \
	"              [--quantity PATH[:COMP]]... [--json]\n"
#define USAGE_SPECTRAL \
	"mbsim spectral --method M [--rho R] [--alpha A] [--ratio-range A:B] [--points N]\n" \
	"               [--measured] [--json|--csv]\n"
#define USAGE_STATIC \
	"mbsim static DECK [--set KEY=VALUE]... [--unset KEY]... [--time T] [--max-iterations N] [--load-steps N]\n" \
	"             [--tolerance R] [--json]\n"
#define USAGE_MODES \
	"mbsim modes DECK [--set KEY=VALUE]... [--unset KEY]... [--time T | --at T]\n" \
	"            [--buckling [--count N]] [-o FILE.h5 [--force] [--xdmf]] [--json]\n"
#define USAGE_LINEARIZE \
	"mbsim linearize DECK [--set KEY=VALUE]... [--unset KEY]... [--at T | --from-static [--time T]]\n" \
	"                [-o FILE.h5 [--force]] [--json]\n"
#define USAGE_SUMMARY \
	"mbsim summary FILE.h5... [--quantity PATH[:COMP]@TIME]... [--json]\n"
#define USAGE_EXPORT \
	"mbsim export --xdmf [--every K] [--quiet] FILE.h5...\n" \
	"mbsim export --csv [--quantity PATH[:COMP]]... [-o OUT.csv|-] [--quiet] FILE.h5...\n"
#define USAGE_HELP \
	"mbsim help [COMMAND]\n"

#endif
