/* handle DIR: open DIR again by its file handle (the "shocker" escape's
 * call), with DIR's mount as the mount fd.  Prints "name_to_handle:X" and
 * "open_by_handle:X".
 * handle probe: open_by_handle_at with nothing valid, to see who answers:
 * the kernel checks the arguments (EBADF, EFAULT), or something refuses
 * the call first (EPERM: a seccomp filter, or a kernel that checks
 * CAP_DAC_READ_SEARCH in the initial user namespace before anything). */
#include "attack.h"
#include <fcntl.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	struct file_handle *fh = malloc(sizeof *fh + MAX_HANDLE_SZ);
	int mount_id, mount_fd;

	if (argc != 2)
		return usage("handle DIR|probe");
	if (strcmp(argv[1], "probe") == 0)
		return report("open_by_handle", open_by_handle_at(-1, NULL, 0)), 0;
	fh->handle_bytes = MAX_HANDLE_SZ;
	mount_fd = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (mount_fd < 0)
		return perror(argv[1]), 1;
	if (name_to_handle_at(AT_FDCWD, argv[1], fh, &mount_id, 0) < 0)
		return report("name_to_handle", -1), 0;
	report("name_to_handle", 0);
	report("open_by_handle",
	       open_by_handle_at(mount_fd, fh, O_RDONLY | O_DIRECTORY));
	return 0;
}
