/* The kernel's fd-based mount API, as the mounts stage uses it: new file
 * systems (fsopen, fsconfig, fsmount) created detached, mount attributes
 * set on a whole tree at once (mount_setattr), and the mounts stage's
 * errors, in hutch's words or bwrap's. */
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
#include "mount_api.h"
#include "mount.h"

int mount_error(struct mount_state *ms, const char *what, const char *obj)
{
	return log_fail(ms->err, ms->errlen, "mounts", what, obj, errno);
}

/* A failure in hutch's words (WHAT OBJ), or in bwrap mode in bwrap's
 * (ID with A and B). */
int mount_op_error(struct mount_state *ms, const char *what, const char *obj,
		    enum bwrap_text id, const char *a, const char *b)
{
	return messages_bwrap_fail(ms->err, ms->errlen, ms->plan->mode,
				   &(struct failure){ "mounts", what, obj, id, a, b }, errno);
}

int mount_set_attrs(int fd, unsigned long long set, bool recursive)
{
	struct mount_attr attr = { .attr_set = set };

	return mount_setattr(fd, "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0),
			     &attr, sizeof(attr));
}

bool mount_is_root(int fd)
{
	struct statx sx;

	return statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &sx) == 0 &&
	       (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
	       (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
}

/* A new file system context of TYPE whose source, in mountinfo, is its
 * type's name, as bwrap mounts them ("proc", "tmpfs"...), not "none". */
int mount_open_fs(const char *type)
{
	int fs = fsopen(type, FSOPEN_CLOEXEC);

	if (fs >= 0 && fsconfig(fs, FSCONFIG_SET_STRING, "source", type, 0) < 0) {
		close(fs);
		return -1;
	}
	return fs;
}

int mount_make_fs_attrs(const char *type, const char *const *opts, int nopts,
			 unsigned long long attrs)
{
	int fs = mount_open_fs(type);
	int mnt;

	if (fs < 0)
		return -1;
	for (int i = 0; i + 1 < nopts; i += 2)
		if (fsconfig(fs, FSCONFIG_SET_STRING, opts[i], opts[i + 1], 0) < 0)
			goto fail;
	if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		goto fail;
	mnt = fsmount(fs, FSMOUNT_CLOEXEC, attrs);
	close(fs);
	return mnt;
fail:
	close(fs);
	return -1;
}

int mount_make_fs(const char *type, const char *const *opts, int nopts)
{
	return mount_make_fs_attrs(type, opts, nopts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
}

void mount_tmpfs_options(struct tmpfs_options *o, mode_t mode, unsigned long long size,
			 const char *label)
{
	snprintf(o->mode, sizeof(o->mode), "%o", (unsigned)mode);
	snprintf(o->size, sizeof(o->size), "%llu", size);
	o->n = 0;
	o->kv[o->n++] = "mode";
	o->kv[o->n++] = o->mode;
	if (size) {
		o->kv[o->n++] = "size";
		o->kv[o->n++] = o->size;
	}
	if (label) {
		o->kv[o->n++] = "context";
		o->kv[o->n++] = label;
	}
}

int mount_make_labelled_tmpfs(mode_t mode, unsigned long long size, const char *label)
{
	struct tmpfs_options o;

	mount_tmpfs_options(&o, mode, size, label);
	return mount_make_fs("tmpfs", o.kv, o.n);
}

int mount_make_tmpfs(mode_t mode, unsigned long long size)
{
	return mount_make_labelled_tmpfs(mode, size, NULL);
}

const char *mount_attach_point(void)
{
	static const char *const candidates[] = { "/tmp", "/mnt", "/run", "/" };
	struct stat st;

	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++)
		if (stat(candidates[i], &st) == 0 && S_ISDIR(st.st_mode))
			return candidates[i];
	return "/";
}
