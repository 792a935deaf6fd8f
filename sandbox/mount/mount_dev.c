/* --dev: a tmpfs with the host's harmless device nodes bound in (no
 * other device is reachable), a private devpts instance (the host's
 * terminals stay out), the usual links, and in bwrap mode the caller's
 * terminal on /dev/console. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "messages/messages.h"
#include "mount_api.h"
#include "mount_dev.h"
#include "mount_root.h"
#include "mount.h"
#include "lib/lib.h"

/* Device nodes that --dev binds from the host. */
static const char *const dev_nodes[N_DEV_NODES] = {
	"null", "zero", "full", "random", "urandom", "tty",
};

/* bwrap binds the terminal on its stdout, if any, on /dev/console: the
 * sandbox can write there anyway, and ttyname() then works inside. */
static int prepare_console(struct mount_state *ms, const struct fs_op *op)
{
	char dest[PATH_MAX];
	const char *tty = ms->bwrap && ms->console < 0 && isatty(STDOUT_FILENO) ?
			  ttyname(STDOUT_FILENO) : NULL;

	if (!tty || !*tty)
		return 0;
	snprintf(dest, sizeof(dest), "%s/console", op->dest);
	ms->console_src = xstrdup(tty);
	ms->console = open_tree(AT_FDCWD, tty, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (ms->console < 0)
		return mount_op_error(ms, "clone terminal", tty, BW_BIND, tty, dest);
	if (mount_set_attrs(ms->console, MOUNT_ATTR_NOSUID, false) < 0)
		return mount_op_error(ms, "set attributes of", tty, BW_BIND_FLAGS, tty, dest);
	return 0;
}

int mount_dev_prepare(struct mount_state *ms, const struct fs_op *op)
{
	for (int i = 0; i < N_DEV_NODES; i++) {
		char path[32], dest[PATH_MAX];

		if (ms->dev_nodes[i] >= 0)
			continue;
		snprintf(path, sizeof(path), "/dev/%s", dev_nodes[i]);
		snprintf(dest, sizeof(dest), "%s/%s", op->dest, dev_nodes[i]);
		ms->dev_nodes[i] = open_tree(AT_FDCWD, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
		if (ms->dev_nodes[i] < 0)
			return mount_op_error(ms, "clone device", path, BW_BIND, path, dest);
		/* like bwrap's device binds: nosuid (but devices, of course) */
		if (mount_set_attrs(ms->dev_nodes[i], MOUNT_ATTR_NOSUID, false) < 0)
			return mount_op_error(ms, "set attributes of", path, BW_BIND_FLAGS, path, dest);
	}
	return prepare_console(ms, op);
}

static int dev_file(struct mount_state *ms, const char *dev, const char *name,
		    int tree)
{
	char path[PATH_MAX], host[PATH_MAX];
	struct mount_text mt = { BW_BIND, host, path };

	snprintf(path, sizeof(path), "%s/%s", dev, name);
	snprintf(host, sizeof(host), "/dev/%s", name);
	return mount_root_attach(ms, tree, path, false, &mt);
}

static int dev_devpts(struct mount_state *ms, const char *dev)
{
	static const char *const opts[] = {
		"newinstance", "", "ptmxmode", "0666", "mode", "620",
	};
	char path[PATH_MAX];
	struct mount_text mt = { BW_MOUNT_DEVPTS, dev, NULL };
	int fs, mnt, r;

	fs = mount_open_fs("devpts");
	if (fs < 0)
		return mount_op_error(ms, "new devpts for", dev, mt.id, dev, NULL);
	r = fsconfig(fs, FSCONFIG_SET_FLAG, opts[0], NULL, 0);
	for (int i = 2; i < 6 && r == 0; i += 2)
		r = fsconfig(fs, FSCONFIG_SET_STRING, opts[i], opts[i + 1], 0);
	if (r == 0)
		r = fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0);
	mnt = r == 0 ? fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC) : -1;
	close(fs);
	if (mnt < 0)
		return mount_op_error(ms, "new devpts for", dev, mt.id, dev, NULL);
	snprintf(path, sizeof(path), "%s/pts", dev);
	r = mount_root_attach(ms, mnt, path, true, &mt);
	close(mnt);
	return r;
}

static const char *const dev_links[][2] = {
	{ "pts/ptmx", "ptmx" }, { "/proc/self/fd", "fd" },
	{ "/proc/self/fd/0", "stdin" }, { "/proc/self/fd/1", "stdout" },
	{ "/proc/self/fd/2", "stderr" }, { "/proc/kcore", "core" },
};

static int dev_console(struct mount_state *ms, const char *dev)
{
	char path[PATH_MAX];
	struct mount_text mt = { BW_BIND, ms->console_src, path };

	if (ms->console < 0)
		return 0;
	snprintf(path, sizeof(path), "%s/console", dev);
	return mount_root_attach(ms, ms->console, path, false, &mt);
}

int mount_dev_attach(struct mount_state *ms, struct fs_op *op)
{
	char path[PATH_MAX];
	int fd = mount_make_labelled_tmpfs(0755, 0, ms->plan->file_label);
	struct mount_text mt = { BW_MOUNT_TMPFS, op->dest, NULL };
	int r;

	if (fd < 0)
		return mount_op_error(ms, "new tmpfs for", op->dest, mt.id, op->dest, NULL);
	/* Device nodes must work in this tmpfs: no nodev on it. */
	r = mount_root_attach(ms, fd, op->dest, true, &mt);
	close(fd);
	for (int i = 0; i < N_DEV_NODES && r == 0; i++)
		r = dev_file(ms, op->dest, dev_nodes[i], ms->dev_nodes[i]);
	for (size_t i = 0; i < 6 && r == 0; i++) {
		snprintf(path, sizeof(path), "%s/%s", op->dest, dev_links[i][1]);
		r = mount_root_make_symlink(ms, dev_links[i][0], path);
	}
	snprintf(path, sizeof(path), "%s/shm", op->dest);
	if (r == 0 && (fd = mount_root_make_dirs(ms, path, 0755)) < 0)
		return mount_op_error(ms, "create", path, BW_DEV_SHM, op->dest, NULL);
	if (r == 0)
		close(fd);
	if (r == 0)
		r = dev_devpts(ms, op->dest);
	return r == 0 ? dev_console(ms, op->dest) : r;
}
