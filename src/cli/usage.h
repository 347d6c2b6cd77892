/* usage.h - synopsis lines of every command.  The man pages' SYNOPSIS
 * sections must say the same (tests/t-usage.sh keeps them equal). */
#ifndef MBSIM_USAGE_H
#define MBSIM_USAGE_H

#define USAGE_MBSIM \
	"mbsim COMMAND [ARGS]...\n" \
	"mbsim --version\n"
#define USAGE_RUN \
	"mbsim run DECK [-o FILE.h5] [--set KEY=VALUE]... [--quiet] [--json]\n"
#define USAGE_CHECK \
	"mbsim check [--set KEY=VALUE]... DECK...\n"
#define USAGE_LIST \
	"mbsim list integrators|joints|forces|keys\n"
#define USAGE_HELP \
	"mbsim help [COMMAND]\n"

#endif
