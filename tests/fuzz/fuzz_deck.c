/* fuzz_deck.c - libFuzzer target: the input is a deck, and everything
 * `mbsim check` does with it runs in process (deck_load_text, deck_build,
 * formatting every diagnostic), then all is freed (LeakSanitizer checks). */
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
	struct deck *dk = deck_load_text("fuzz.yaml", text, size, &d);
	if (dk && d.nerr == 0)
		deck_build(dk, &m, &o, &d);
	for (int i = 0; i < d.n; i++)
		free(diag_format(&d, i));
	diag_release(&d);
	model_free(&m);
	deck_free(&dk);
	return 0;
}
