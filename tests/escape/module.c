/* module: load a kernel module from a file (this program's own binary,
 * which is no module: the load must be refused before the kernel reads it).
 * Prints "finit_module:X". */
#include "attack.h"
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return perror("/proc/self/exe"), 1;
	report("finit_module", syscall(SYS_finit_module, fd, "", 0));
	return 0;
}
