/* fdcheck FD NAME: is FD, inherited from outside, still open, and does it
 * lead to FD's directory entry NAME?  Prints "fstat:X", "link:X" (readlink
 * of /proc/self/fd/FD) and "openat:X" (FD/NAME, read-only). */
#include "attack.h"
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[64], target[4096];
	struct stat st;
	int fd;

	if (argc != 3)
		return usage("fdcheck FD NAME");
	fd = atoi(argv[1]);
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	report("fstat", fstat(fd, &st));
	report("link", readlink(path, target, sizeof target));
	report("openat", openat(fd, argv[2], O_RDONLY));
	return 0;
}
