/* whoami: the privileges this process runs with, "euid:N" and "capeff:HEX"
 * (effective capabilities).  Copied setuid root by the tests. */
#include "attack.h"
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = { 0 };

	if (syscall(SYS_capget, &hdr, data) < 0)
		return perror("capget"), 1;
	printf("euid:%u\n", (unsigned)geteuid());
	printf("capeff:%08x%08x\n", data[1].effective, data[0].effective);
	return 0;
}
