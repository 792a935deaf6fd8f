/* --args FD: the input after its first byte goes through a pipe, read as
 * NUL-separated arguments.  The first byte picks the mode (bit 0) and
 * whether options (bit 1) and a COMMAND (bit 2) follow on the command
 * line, after what the pipe held. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char fdstr[16];
	char *argv[] = { data[0] & 1 ? "bwrap" : "hutch", "--args", fdstr,
			 NULL, NULL, NULL, NULL, NULL, NULL };
	int argc = 3, p[2];

	if (size < 1 || size > 65536)	/* what a pipe holds unread */
		return -1;
	if (data[0] & 2) {
		argv[argc++] = "--ro-bind";
		argv[argc++] = "/";
		argv[argc++] = "/";
	}
	if (data[0] & 4) {
		argv[argc++] = "--";
		argv[argc++] = "true";
	}
	if (pipe2(p, O_CLOEXEC) < 0 ||
	    write(p[1], data + 1, size - 1) != (ssize_t)(size - 1))
		abort();
	close(p[1]);
	snprintf(fdstr, sizeof(fdstr), "%d", p[0]);
	fuzz_lend(p[0]);
	fuzz_parse(argc, argv);
	fuzz_unlend(p[0]);
	close(p[0]);
	return 0;
}
