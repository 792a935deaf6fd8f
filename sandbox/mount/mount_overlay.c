/* Overlays (--overlay-src with --overlay, --tmp-overlay, --ro-overlay):
 * assembled while the host's paths are visible, from directories opened
 * once, and handed to the walk of operations as detached trees. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "messages/messages.h"
#include "lib/lib.h"
#include "mount_api.h"
#include "mount_overlay.h"
#include "mount.h"

static int overlay_error(struct mount_state *ms, size_t i)
{
	const struct fs_op *op = &ms->plan->ops[i];
	char opts[8192] = "";
	int saved = errno;

	if (ms->bwrap)
		messages_bwrap_overlay_options(ms->plan, i, opts, sizeof(opts));
	errno = saved;
	return mount_op_error(ms, "overlay on", op->dest,
			saved == ELOOP ? BW_OVERLAY_OVERLAP : BW_OVERLAY, op->dest, opts);
}

static int check_source(struct mount_state *ms, const char *path)
{
	char *real = realpath(path, NULL);

	if (!real)
		return mount_op_error(ms, "overlay source", path, BW_FIND_SOURCE, path, NULL);
	free(real);
	return 0;
}

/* bwrap resolves an overlay's paths before anything is mounted: the
 * upper and work directories, then the layers, top first. */
static int check_overlay_sources(struct mount_state *ms, const struct fs_op *op)
{
	if (!ms->bwrap)
		return 0;
	if (op->kind == FS_OVERLAY &&
	    (check_source(ms, op->src) < 0 || check_source(ms, op->workdir) < 0))
		return -1;
	for (size_t l = op->n_lower; l > 0; l--)
		if (check_source(ms, op->lower[l - 1]) < 0)
			return -1;
	return 0;
}

/* An overlay's directories, opened once (O_PATH): lower top first (the
 * last --overlay-src is the top layer, as in bwrap), then upper and
 * work, or -1 for a read-only overlay. */
struct overlay_dirs {
	int *lower;
	size_t n_lower;
	int upper, work;
};

static void close_overlay_dirs(struct overlay_dirs *d)
{
	for (size_t l = 0; l < d->n_lower; l++)
		if (d->lower[l] >= 0)
			close(d->lower[l]);
	free(d->lower);
	if (d->upper >= 0)
		close(d->upper);
	if (d->work >= 0)
		close(d->work);
}

static int open_dir(int at, const char *path)
{
	return openat(at, path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

static int open_overlay_dirs(struct mount_state *ms, const struct fs_op *op,
			     struct overlay_dirs *d)
{
	d->lower = xreallocarray(NULL, op->n_lower ? op->n_lower : 1, sizeof(int));
	d->n_lower = 0;
	d->upper = d->work = -1;
	for (size_t l = op->n_lower; l > 0; l--) {
		d->lower[d->n_lower] = open_dir(AT_FDCWD, op->lower[l - 1]);
		if (d->lower[d->n_lower++] < 0)
			return mount_op_error(ms, "overlay layer", op->lower[l - 1], BW_FIND_SOURCE,
					op->lower[l - 1], NULL);
	}
	if (op->kind != FS_OVERLAY)
		return 0;
	d->upper = open_dir(AT_FDCWD, op->src);
	if (d->upper < 0)
		return mount_op_error(ms, "overlay upper directory", op->src, BW_FIND_SOURCE,
				op->src, NULL);
	d->work = open_dir(AT_FDCWD, op->workdir);
	if (d->work < 0)
		return mount_op_error(ms, "overlay work directory", op->workdir, BW_FIND_SOURCE,
				op->workdir, NULL);
	return 0;
}

/* The upper and work directories of --tmp-overlay, on a private tmpfs.
 * overlayfs clones the upper mount when it is created, which the kernel
 * refuses for a detached mount: the tmpfs is attached, in this private
 * namespace only, over a host directory until the overlay is created
 * (the layers were opened already), then detached again. */
static int open_tmp_upper(struct overlay_dirs *d, bool *attached)
{
	int tmp = mount_make_tmpfs(0755, 0);

	if (tmp < 0)
		return -1;
	if (move_mount(tmp, "", AT_FDCWD, mount_attach_point(), MOVE_MOUNT_F_EMPTY_PATH) < 0) {
		close(tmp);
		return -1;
	}
	*attached = true;
	if (mkdirat(tmp, "upper", 0755) == 0 && mkdirat(tmp, "work", 0755) == 0) {
		d->upper = open_dir(tmp, "upper");
		d->work = open_dir(tmp, "work");
	}
	close(tmp);
	return d->upper >= 0 && d->work >= 0 ? 0 : -1;
}

/* A directory by fd, or, for an overlayfs that takes only names, by the
 * name /proc/self/fd/N of that fd: the same directory, and no path text
 * for overlayfs to split at ':' or ',' or unescape. */
static int overlay_set(int fs, const char *key, int fd, bool by_name)
{
	char name[32];

	if (!by_name)
		return fsconfig(fs, FSCONFIG_SET_FD, key, NULL, fd);
	snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
	return fsconfig(fs, FSCONFIG_SET_STRING, key, name, 0);
}

/* lowerdir takes all layers at once, ':' between them. */
static int overlay_set_lower_names(int fs, const struct overlay_dirs *d)
{
	char *all = xreallocarray(NULL, d->n_lower, 32);
	size_t n = 0;
	int r;

	for (size_t l = 0; l < d->n_lower; l++)
		n += (size_t)snprintf(all + n, 32, "%s/proc/self/fd/%d", l ? ":" : "",
				      d->lower[l]);
	r = fsconfig(fs, FSCONFIG_SET_STRING, "lowerdir", all, 0);
	free(all);
	return r;
}

static int overlay_set_lower(int fs, const struct overlay_dirs *d, bool by_name)
{
	if (by_name)
		return d->n_lower ? overlay_set_lower_names(fs, d) : 0;
	for (size_t l = 0; l < d->n_lower; l++)
		if (overlay_set(fs, "lowerdir+", d->lower[l], false) < 0)
			return -1;
	return 0;
}

/* A created overlay context, or -1 with errno set. */
static int create_overlay(const struct overlay_dirs *d, bool by_name)
{
	int fs = mount_open_fs("overlay");
	int r = fs < 0 ? -1 : fsconfig(fs, FSCONFIG_SET_FLAG, "userxattr", NULL, 0);

	if (r == 0 && !by_name && fault_kernel_lacks("overlay-fd")) {
		errno = EOPNOTSUPP;	/* as Linux 6.1 says it */
		r = -1;
	}
	if (r == 0)
		r = overlay_set_lower(fs, d, by_name);
	if (r == 0 && d->upper >= 0)
		r = overlay_set(fs, "upperdir", d->upper, by_name);
	if (r == 0 && d->work >= 0)
		r = overlay_set(fs, "workdir", d->work, by_name);
	if (r == 0)
		r = fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0);
	if (r < 0 && fs >= 0) {
		int saved = errno;

		close(fs);
		errno = saved;
		fs = -1;
	}
	return fs;
}

/* overlayfs takes its directories by fd since Linux 6.13.  An older one
 * refuses that, in its own words: EOPNOTSUPP at once on 6.1's legacy
 * mount context (which refuses lowerdir+ by name only at create, with
 * EINVAL), EBADF on 6.12, EINVAL on others.  So whatever the attempt by
 * fd says, the context is built again by name, which works on every
 * kernel and, where the overlay really cannot be made, says why. */
static int create_overlay_any(const struct overlay_dirs *d)
{
	int fs = create_overlay(d, false);

	if (fs < 0)
		fs = create_overlay(d, true);
	return fs;
}

int mount_overlay_prepare(struct mount_state *ms, struct fs_op *op, size_t i)
{
	struct overlay_dirs d = { 0 };
	bool tmp_attached = false;
	int fs, saved;

	if (check_overlay_sources(ms, op) < 0 || open_overlay_dirs(ms, op, &d) < 0) {
		close_overlay_dirs(&d);
		return -1;
	}
	fs = op->kind == FS_TMP_OVERLAY && open_tmp_upper(&d, &tmp_attached) < 0 ?
	     -1 : create_overlay_any(&d);
	saved = errno;
	if (tmp_attached && umount2(mount_attach_point(), MNT_DETACH) < 0 && fs >= 0) {
		saved = errno;
		close(fs);
		fs = -1;
	}
	if (fs >= 0) {
		ms->trees[i] = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
				       (op->kind == FS_RO_OVERLAY ? MOUNT_ATTR_RDONLY : 0));
		saved = errno;
		close(fs);
	}
	close_overlay_dirs(&d);
	errno = saved;
	if (fs < 0 || ms->trees[i] < 0)
		return overlay_error(ms, i);
	return 0;
}
