/* deck.h - the deck loader: YAML file -> struct model + struct sim_options.
 *
 * A deck is read once into a tree whose every node remembers FILE:LINE:COL
 * (deck_load), may be edited by --set overrides (deck_set), and is then
 * validated and turned into a model (deck_build). Errors are appended to a
 * struct diag; the loader never prints. The deck format is documented in
 * man/mbsim-deck.5 and schema/deck.schema.json.
 */
#ifndef MBSIM_DECK_H
#define MBSIM_DECK_H

#include <stdio.h>

#include "../model/model.h"
#include "../model/options.h"
#include "../util/diag.h"

struct deck;

/* The largest deck file read (a 10^5-body deck written out in full is
 * about 10 MiB). */
#define DECK_MAX_BYTES (256 << 20)

/* Read and parse a YAML deck. NULL (with records in d) on an I/O or YAML
 * syntax error. */
struct deck *deck_load(const char *path, struct diag *d);
/* What deck_load does after reading the file: parse text (len bytes,
 * text[len] == 0, malloc'd; the deck takes it, also on failure) as the
 * deck named path. The fuzz harness loads its input through this. */
struct deck *deck_load_text(const char *path, char *text, size_t len, struct diag *d);

/* Apply one override "KEY.PATH=VALUE" (the --set option). List items are
 * selected by their 'name' or by a 0-based index; a missing key that is
 * valid at that place is added. 0 on success, -1 with a record in d. */
int deck_set(struct deck *dk, const char *assignment, struct diag *d);
/* Remove the key KEY.PATH (the --unset option), found as deck_set finds
 * it; a key the deck does not have is an error.  What the key's removal
 * leaves (a required key missing, a default in force) is validated by
 * deck_build as the deck is. */
int deck_unset(struct deck *dk, const char *key, struct diag *d);
/* A --set argument that stands for --unset KEY: DECK_UNSET_MARK "KEY"
 * (the commands keep --set and --unset in one list, in order; deck_apply
 * tells them apart). */
#define DECK_UNSET_MARK "\x01"
/* deck_set or deck_unset by the form of a (see DECK_UNSET_MARK). */
int deck_apply(struct deck *dk, const char *a, struct diag *d);

/* Validate the whole deck, reporting every error found, and build the
 * model (model_finalize included) and the run options. 0 on success; -1
 * on any error, then *m == NULL.  On success the tree is freed (the model
 * does not need it): deck_text and deck_path stay, deck_set and deck_build
 * fail from then on. */
int deck_build(struct deck *dk, struct model **m, struct sim_options *o,
	       struct diag *d);

/* The original file text, unmodified by deck_set. */
const char *deck_text(const struct deck *dk);
const char *deck_path(const struct deck *dk);
void deck_free(struct deck **dk);

/* Every key path the loader knows, one per line ("integrator.method",
 * "bodies[].mass", "drivers[].function.rate", "parameters.*"), followed
 * by its type, default ("required", "-" for none), range ("-" for
 * none) and description, in columns separated by blanks. */
void deck_print_keys(FILE *f);

#endif
