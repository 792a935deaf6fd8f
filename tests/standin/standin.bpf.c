/* A stand-in for Ubuntu's kernel.apparmor_restrict_unprivileged_userns=1,
 * as a BPF LSM program (TEST-ONLY; docs/machines.md, "Ubuntu's
 * user namespace restriction, stood in for").
 *
 * Ubuntu: an unprivileged task may create a user namespace, but AppArmor
 * moves it to the unprivileged_userns profile, which denies every
 * capability; the task keeps its full capability sets on paper, and each
 * check (cap_capable, then the LSM hook) fails.  Tasks outside keep their
 * rights: a parent still writes its child's id maps.  A program whose
 * AppArmor profile says `userns,` keeps its capabilities until it
 * executes another program (bwrap-userns-restrict: px to unpriv_bwrap,
 * with `deny capability`).
 *
 * Here: a user namespace owned by a uid in restricted_uids (its creator's
 * euid, which the kernel records as the owner) is restricted, and so is
 * every namespace below it.  A capability check whose cred lives in a
 * restricted namespace is denied with EPERM unless the cred carries the
 * stand-in for a loaded profile with `userns,` attached to a path: its
 * task executed, unlabelled, a file from a path matching one of the
 * loader's patterns (allowed_programs); what it executes in turn keeps
 * nothing (the labels map).
 *
 * AppArmor mediates more than capabilities, and in unprivileged_userns
 * two of its refusals come first and with another errno, which programs
 * print: mount, umount, pivot_root and move_mount are refused with
 * EACCES (that profile has no mount rules; the LSM hook runs before the
 * capability check), and so is opening a file through a mount outside
 * the task's mount namespace (a "disconnected path": bwrap's /proc fd
 * from before its clone, hence "bwrap: setting up uid map: Permission
 * denied").  A program's profile (hutch's -command, Ubuntu's
 * unpriv_bwrap) has mount rules and attach_disconnected: what it runs
 * meets only the capability check.  Restriction keyed on the
 * namespace's owner,
 * not on a record made at creation: nothing to clean up when namespaces
 * die, no inode number reused by the next one. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#define EPERM 1
#define EACCES 13
#define MAX_USERNS_DEPTH 33	/* the kernel's 32 levels, and the initial one */

char LICENSE[] SEC("license") = "GPL";

/* A program file, as the kernel names it. */
struct program_id {
	__u64 dev;	/* the kernel's dev_t: major << 20 | minor */
	__u64 ino;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u8);
} restricted_uids SEC(".maps");

/* The files being executed from a path an attachment matches, each
 * with its pattern's slot + 1.  The loader keeps it (loader.c): it sees
 * every exec on the filesystems of the attached paths before the exec
 * goes on (fanotify's FAN_OPEN_EXEC_PERM), matches the path, and adds
 * the file, or removes it when it is executed from a path that does not
 * match (a copy's inode number reused by another file).  LRU: it never
 * fills; a file it forgets is unregistered, which grants nothing. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, struct program_id);
	__type(value, __u32);
} allowed_programs SEC(".maps");

/* Each credential's label, as AppArmor keeps a profile in a task's
 * credentials (cred->security): set at exec on the new credentials,
 * copied whenever the kernel prepares credentials from others (fork,
 * unshare, setuid, a filesystem's override credentials: overlayfs
 * acts with its mounter's, so a capability check inside it asks about
 * the label of whoever mounted it, not of the task writing), dropped
 * when the credentials are freed.  Credentials with none are
 * unconfined (and, in a restricted namespace, confined by the
 * restriction).
 *   LABEL_PROFILE  executed a registered file (from an attached path)
 *                  while unlabelled: keeps its capabilities
 *   LABEL_COMMAND  executed anything while labelled: what the registered
 *                  program runs, and everything below it, holds none, as
 *                  under hutch's profile (pix -> &hutch-command) and
 *                  Ubuntu's bwrap-userns-restrict (px -> unpriv_bwrap);
 *                  a registered file executed there gains nothing.
 * Plain hash, not LRU: a full map labels nothing new (no capability
 * granted), it never forgets a COMMAND label. */
#define LABEL_PROFILE 1
#define LABEL_COMMAND 2
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);	/* the struct cred's address */
	__type(value, __u32);
} labels SEC(".maps");

/* [0] capability checks denied, [1] allowed for a registered program:
 * the checks read them to know that the stand-in, not something else,
 * decided. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

static void count(__u32 which)
{
	__u64 *n = bpf_map_lookup_elem(&counters, &which);

	if (n)
		__sync_fetch_and_add(n, 1);
}

/* Is NS, or one of its ancestors below the initial namespace, owned by
 * a restricted uid? */
static bool restricted(struct user_namespace *ns)
{
	for (int i = 0; i < MAX_USERNS_DEPTH && ns; i++) {
		struct user_namespace *parent = BPF_CORE_READ(ns, parent);
		__u32 owner = BPF_CORE_READ(ns, owner.val);

		if (!parent)
			return false;	/* the initial namespace: never */
		if (bpf_map_lookup_elem(&restricted_uids, &owner))
			return true;
		ns = parent;
	}
	return false;
}

/* Is FILE one executed from an attached path? */
static bool registered_file(struct file *file)
{
	struct program_id id = {};

	if (!file)
		return false;
	id.dev = BPF_CORE_READ(file, f_inode, i_sb, s_dev);
	id.ino = BPF_CORE_READ(file, f_inode, i_ino);
	return bpf_map_lookup_elem(&allowed_programs, &id) != NULL;
}

/* The label of credentials CRED, 0 for none. */
static __u32 cred_label(const struct cred *cred)
{
	__u64 key = (__u64)cred;
	__u32 *label = bpf_map_lookup_elem(&labels, &key);

	return label ? *label : 0;
}

/* Is the current task in AppArmor's unprivileged_userns profile: its
 * credentials (the subjective ones, overridden or not, as AppArmor
 * asks) in a restricted namespace, and under no profile of a program?
 * Only that profile refuses mounts and disconnected paths; hutch's
 * profiles allow both (mount rules, attach_disconnected) and leave the
 * refusal to the capability check, as Ubuntu's unpriv_bwrap does. */
static bool unprivileged_userns_task(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const struct cred *cred = BPF_CORE_READ(task, cred);

	return restricted(BPF_CORE_READ(cred, user_ns)) && cred_label(cred) == 0;
}

static int refuse_mount(int ret)
{
	if (ret || !unprivileged_userns_task())
		return ret;
	count(0);
	return -EACCES;
}

SEC("lsm/sb_mount")
int BPF_PROG(standin_sb_mount, const char *dev, const struct path *path, const char *type,
	     unsigned long flags, void *data, int ret)
{
	return refuse_mount(ret);
}

SEC("lsm/sb_umount")
int BPF_PROG(standin_sb_umount, struct vfsmount *mnt, int flags, int ret)
{
	return refuse_mount(ret);
}

SEC("lsm/sb_pivotroot")
int BPF_PROG(standin_sb_pivotroot, const struct path *old_path, const struct path *new_path,
	     int ret)
{
	return refuse_mount(ret);
}

SEC("lsm/move_mount")
int BPF_PROG(standin_move_mount, const struct path *from, const struct path *to, int ret)
{
	return refuse_mount(ret);
}

/* A file reached through a mount of another mount namespace: AppArmor
 * cannot name its path ("disconnected") and refuses it. */
SEC("lsm/file_open")
int BPF_PROG(standin_file_open, struct file *file, int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct vfsmount *vfs = BPF_CORE_READ(file, f_path.mnt);
	struct mount *mnt = (void *)vfs - bpf_core_field_offset(struct mount, mnt);
	struct mnt_namespace *file_ns = BPF_CORE_READ(mnt, mnt_ns);

	/* Internal mounts (pipes, sockets, memfds) have none, or the
	 * kernel's MNT_NS_INTERNAL, an error pointer. */
	if (ret || (unsigned long)file_ns + 4096 <= 4096 ||
	    file_ns == BPF_CORE_READ(task, nsproxy, mnt_ns))
		return ret;
	if (!unprivileged_userns_task())
		return 0;
	count(0);
	return -EACCES;
}

/* The label at exec, on the credentials the exec commits (prepared
 * from the caller's, so they hold its label already). */
SEC("lsm/bprm_committing_creds")
int BPF_PROG(standin_exec_label, struct linux_binprm *bprm)
{
	const struct cred *cred = BPF_CORE_READ(bprm, cred);
	__u64 key = (__u64)cred;
	__u32 next;

	if (cred_label(cred))
		next = LABEL_COMMAND;
	else if (registered_file(BPF_CORE_READ(bprm, file)))
		next = LABEL_PROFILE;
	else
		return 0;
	bpf_map_update_elem(&labels, &key, &next, BPF_ANY);
	return 0;
}

static void copy_label(const struct cred *to, const struct cred *from)
{
	__u64 dst = (__u64)to, src = (__u64)from;
	__u32 *label = bpf_map_lookup_elem(&labels, &src);

	if (label)
		bpf_map_update_elem(&labels, &dst, label, BPF_ANY);
}

/* New credentials made from others inherit their label. */
SEC("lsm/cred_prepare")
int BPF_PROG(standin_cred_prepare, struct cred *new, const struct cred *old, gfp_t gfp, int ret)
{
	if (!ret)
		copy_label(new, old);
	return ret;
}

SEC("lsm/cred_transfer")
int BPF_PROG(standin_cred_transfer, struct cred *new, const struct cred *old)
{
	copy_label(new, old);
	return 0;
}

SEC("lsm/cred_free")
int BPF_PROG(standin_cred_free, struct cred *cred)
{
	__u64 key = (__u64)cred;

	bpf_map_delete_elem(&labels, &key);
	return 0;
}

SEC("lsm/capable")
int BPF_PROG(standin_capable, const struct cred *cred, struct user_namespace *ns,
	     int cap, unsigned int opts, int ret)
{
	if (ret)
		return ret;	/* already refused */
	if (!restricted(BPF_CORE_READ(cred, user_ns)))
		return 0;
	if (cred_label(cred) == LABEL_PROFILE) {
		count(1);
		return 0;
	}
	count(0);
	return -EPERM;
}
