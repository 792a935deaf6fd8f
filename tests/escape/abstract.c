/* abstract NAME: connect to the abstract unix socket "\0NAME".  Prints
 * "connect:X". */
#include "attack.h"
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>

int main(int argc, char **argv)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	size_t len;
	int fd;

	if (argc != 2 || strlen(argv[1]) >= sizeof addr.sun_path - 1)
		return usage("abstract NAME");
	len = strlen(argv[1]);
	memcpy(addr.sun_path + 1, argv[1], len);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0)
		return perror("socket"), 1;
	report("connect", connect(fd, (struct sockaddr *)&addr,
				  (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len)));
	return 0;
}
