/* What hutch runs on the stand-in (TEST-ONLY): tries to write ARGV[1]
 * (a file outside the sandbox's writable places), says how that went,
 * what pid it has and whether /proc is a mount of its own, and exits 7. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd = argc > 1 ? open(argv[1], O_WRONLY | O_CREAT | O_CLOEXEC, 0600) : -1;

	printf("write-outside %s\n", fd >= 0 ? "ok" : strerror(errno));
	printf("pid %d\n", (int)getpid());
	fflush(stdout);
	return 7;
}
