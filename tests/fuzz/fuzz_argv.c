/* The option parser: the input is an argv, its elements separated by NUL
 * bytes, after a first byte whose low bit picks the mode (hutch or bwrap,
 * as argv[0] does). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, **argv;
	int argc;

	if (size < 1 || size > 65536)
		return -1;
	buf = malloc(size);
	argv = calloc(size + 2, sizeof(char *));
	argc = fuzz_split(data + 1, size - 1, buf, argv, data[0] & 1 ? "bwrap" : "hutch");
	fuzz_parse(argc, argv);
	free(argv);
	free(buf);
	return 0;
}
