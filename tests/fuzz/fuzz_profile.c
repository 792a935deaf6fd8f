/* The profile parser: the input is a profile's text, read from a memfd
 * through --profile /proc/self/fd/N as a user's profile file would be,
 * then applied to the plan with the rest of the command line. */
#include "fuzz.h"

#include <sys/mman.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char path[64];
	char *argv[] = { "hutch", "--profile", path, "--", "true", NULL };

	if (size > (1 << 20))
		return -1;
	if (fd < 0)
		fd = memfd_create("fuzz-profile", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 0) < 0 ||
	    pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	fuzz_parse(5, argv);
	return 0;
}
