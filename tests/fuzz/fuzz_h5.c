/* fuzz_h5.c - libFuzzer target: the input is an HDF5 file given to
 * `mbsim compare`.  It is written to a private file and compared with
 * itself through cmd_compare, the command's own code (h5r_open, /time,
 * the dataset lists, every dataset); it must end with exit 0, 1 or 2,
 * never a crash, leak or sanitizer report.  run.sh passes
 * -close_fd_mask=3: the command's messages are not wanted here. */
#include "cli/cli.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[256];
	if (!path[0]) {
		const char *dir = getenv("TMPDIR");
		snprintf(path, sizeof path, "%s/mbsim-fuzz-h5-%ld.h5", dir ? dir : "/tmp",
			 (long)getpid());
	}
	FILE *f = fopen(path, "wb");
	if (!f)
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
	char *argv[] = { "compare", path, path, NULL };
	int rc = cmd_compare(3, argv);
	if (rc != EXIT_OK && rc != EXIT_SIM && rc != EXIT_DECK)
		abort();
	unlink(path);
	return 0;
}
