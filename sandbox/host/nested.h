/* A sandbox inside a sandbox (see nested.c): the calls --allow-nested
 * allows, and what an outer sandbox withholds from hutch's namespaces,
 * found so that a run inside says why in one line. */
#ifndef HUTCH_NESTED_H
#define HUTCH_NESTED_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct sandbox;

/* The mount calls a sandbox inside makes (the default policy's
 * "Nesting" list), NULL-terminated. */
extern const char *const nested_syscalls[];
/* Is NAME (a syscall name, maybe followed by ", rule") one of them? */
bool nested_syscall(const char *name);

/* What the sandbox around this process withholds. */
enum nested_lack {
	NESTED_NONE,	/* nothing found: the usual path decides */
	NESTED_SETFCAP,	/* uid 0 without CAP_SETFCAP: uid 0 cannot be mapped */
	NESTED_MOUNT,	/* a mount call is refused even in a user namespace of our own */
};

struct nested_finding {
	enum nested_lack lack;
	char call[32];	/* NESTED_MOUNT: the call refused */
	int err;	/* its errno; 0 when the probe was killed (SIGSYS) */
};

/* In pid 1, right after its first mount: the mount stage's other calls,
 * each in a form the kernel refuses for its arguments (nothing changes),
 * so that a filter refusing one shows before anything is built.  0, or
 * the errno of the first refused (EPERM, EACCES, ENOSYS) with *CALL its
 * name; a filter that kills ends pid 1 here. */
int nested_calls_refused(const char **call);
/* --doctor's look, before a run in new namespaces as UID (the uid they
 * map): uid 0 without CAP_SETFCAP, then, under a seccomp filter only,
 * the mount calls in a throwaway child in a user namespace of its own. */
void nested_find(uid_t uid, struct nested_finding *out);
/* One line each: the cause, and how to allow it. */
void nested_reason(const struct nested_finding *f, char *buf, size_t len);
const char *nested_fix(const struct nested_finding *f);

/* hutch mode, before clone: uid 0 without CAP_SETFCAP, which no new
 * user namespace can map (a capget, no fork).  Sets sb->found.reason
 * (the fallback's notice) and sb->err (the failure without it), as
 * userns_refused_here does. */
bool nested_uid0_refused_here(struct sandbox *sb);
/* hutch mode, once pid 1's first mount was refused with ERR (-1: pid 1
 * ended before it said, as a filter that kills does): does the sandbox
 * around hutch refuse the mount calls?  Tried only under a seccomp
 * filter; sets sb->found.reason and sb->err likewise. */
bool nested_mount_refused_here(struct sandbox *sb, int err);

#endif
