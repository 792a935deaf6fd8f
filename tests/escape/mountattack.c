/* Make a read-only mount writable, or take it away.
 *   mountattack remount PATH [FILE] mount -o remount,bind (no "ro"): "remount:X"
 *   mountattack setattr PATH [FILE] mount_setattr clearing RDONLY: "setattr:X"
 *   mountattack umount PATH HIDDEN umount2(PATH): "umount:X", then whether
 *                                  PATH/HIDDEN, hidden by the mount, shows:
 *                                  "hidden:ENOENT" or "hidden:ok"
 *   mountattack unlocked PATH      control: a tmpfs of its own on PATH,
 *                                  made read-only ("mount:X", "make-ro:X"),
 *                                  then the remount attack on it
 * remount and setattr then print "ro:yes" or "ro:no": is PATH still
 * read-only?  With FILE, they then try to overwrite PATH/FILE: "write:X".
 * Nothing else is written, whatever the outcome. */
#include "attack.h"
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

static void print_ro(const char *path)
{
	struct statvfs sv;

	if (statvfs(path, &sv) < 0)
		report("ro", -1);
	else
		printf("ro:%s\n", (sv.f_flag & ST_RDONLY) ? "yes" : "no");
}

/* Is PATH still read-only; with FILE, can PATH/FILE be overwritten? */
static void outcome(const char *path, const char *file)
{
	char target[4096];
	int fd;

	print_ro(path);
	if (!file)
		return;
	snprintf(target, sizeof target, "%s/%s", path, file);
	fd = open(target, O_WRONLY | O_TRUNC);
	report("write", fd < 0 ? -1 : write(fd, "escaped\n", 8));
}

static void remount_rw(const char *path, const char *file)
{
	report("remount", mount(NULL, path, NULL, MS_REMOUNT | MS_BIND, NULL));
	outcome(path, file);
}

static void setattr_rw(const char *path, const char *file)
{
	struct mount_attr attr = { .attr_clr = MOUNT_ATTR_RDONLY };

	report("setattr", mount_setattr(AT_FDCWD, path, 0, &attr, sizeof attr));
	outcome(path, file);
}

static void unmount(const char *path, const char *hidden)
{
	char under[4096];
	struct stat st;

	report("umount", umount2(path, 0));
	snprintf(under, sizeof under, "%s/%s", path, hidden);
	report("hidden", stat(under, &st));
}

/* The control: a read-only mount of its own, which nothing locks. */
static void unlocked(const char *path)
{
	report("mount", mount("none", path, "tmpfs", 0, NULL));
	report("make-ro", mount(NULL, path, NULL,
				MS_REMOUNT | MS_BIND | MS_RDONLY, NULL));
	remount_rw(path, NULL);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 2 ? argv[1] : "";
	const char *file = argc > 3 ? argv[3] : NULL;

	if (argc <= 4 && strcmp(mode, "remount") == 0)
		remount_rw(argv[2], file);
	else if (argc <= 4 && strcmp(mode, "setattr") == 0)
		setattr_rw(argv[2], file);
	else if (argc == 4 && strcmp(mode, "umount") == 0)
		unmount(argv[2], argv[3]);
	else if (argc == 3 && strcmp(mode, "unlocked") == 0)
		unlocked(argv[2]);
	else
		return usage("mountattack remount|setattr PATH [FILE] | "
			     "mountattack unlocked PATH | "
			     "mountattack umount PATH HIDDEN");
	return 0;
}
