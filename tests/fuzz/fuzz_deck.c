/* fuzz_deck.c - libFuzzer target: the input is a deck, and everything
 * `mbsim check` does with it runs in process (deck_load_text, the --set
 * overrides, deck_build, formatting every diagnostic), then all is freed
 * (LeakSanitizer checks).  A line "#--set KEY=VALUE" (a YAML comment) is
 * applied as `--set KEY=VALUE`, as tests/t-fuzz-regress.sh replays it. */
#include "deck/deck.h"
#include "util/xalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag d;
	struct model *m = NULL;
	struct sim_options o;
	char *text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = 0;
	diag_init(&d);
	static const char tag[] = "#--set ";
	struct deck *dk = deck_load_text("fuzz.yaml", text, size, &d);
	for (const char *l = dk ? deck_text(dk) : NULL; l; l = strchr(l, '\n')) {
		l += *l == '\n';
		if (strncmp(l, tag, sizeof tag - 1) == 0) {
			size_t n = strcspn(l + sizeof tag - 1, "\n");
			char *a = xasprintf("%.*s", (int)n, l + sizeof tag - 1);
			deck_set(dk, a, &d);
			free(a);
		}
	}
	if (dk && d.nerr == 0)
		deck_build(dk, &m, &o, &d);
	for (int i = 0; i < d.n; i++)
		free(diag_format(&d, i));
	diag_release(&d);
	model_free(&m);
	deck_free(&dk);
	return 0;
}
