/* hog: a process slow to die (t_neverhang.sh, FUSE ordering).
 *
 *   hog MB FIFO READY
 *
 * Populates MB megabytes (freeing them when killed takes a while), opens
 * FIFO for writing (held until death), writes "o" to READY, waits. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t len;
	char *mem;
	int ready;

	if (argc != 4) {
		fprintf(stderr, "usage: hog MB FIFO READY\n");
		return 2;
	}
	len = (size_t)atol(argv[1]) << 20;
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
		   -1, 0);
	if (mem == MAP_FAILED || open(argv[2], O_WRONLY) < 0) {
		perror("hog");
		return 2;
	}
	ready = open(argv[3], O_WRONLY);
	if (ready < 0 || write(ready, "o\n", 2) != 2) {
		perror("hog: ready");
		return 2;
	}
	close(ready);
	for (;;)
		pause();
}
