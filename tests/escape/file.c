/* file read PATH        "read:ok:CONTENT" or "read:ERRNO"
 * file write PATH DATA  "write:ok" or "write:ERRNO" (open and write) */
#include "attack.h"
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static int read_file(const char *path)
{
	char buf[256];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);

	if (n < 0)
		return report("read", -1), 0;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	printf("read:ok:%s\n", buf);
	return 0;
}

static int write_file(const char *path, const char *data)
{
	int fd = open(path, O_WRONLY);
	ssize_t n = fd < 0 ? -1 : write(fd, data, strlen(data));

	report("write", n);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "read") == 0)
		return read_file(argv[2]);
	if (argc == 4 && strcmp(argv[1], "write") == 0)
		return write_file(argv[2], argv[3]);
	return usage("file read PATH | file write PATH DATA");
}
