/* --doctor's shared machinery: a check's finding, and the probes,
 * throwaway children started as hutch starts pid 1 (clone3 with a pidfd,
 * in new namespaces), each running one probe function and reporting
 * through a pipe, always reaped. */
#ifndef HUTCH_DOCTOR_PROBE_H
#define HUTCH_DOCTOR_PROBE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define NS_FLAGS (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID)

struct plan;

enum level { LVL_OK, LVL_WARN, LVL_FAIL };

/* The outcome of one check. */
struct finding {
	enum level level;
	char detail[1024];
	char fix[1024];
};

/* What later checks and the verdict need from earlier ones. */
struct doctor {
	const struct plan *plan;
	bool userns_ok;
	int userns_refusal;	/* enum userns_refusal: what refused them */
	bool clone3_ok;
	int landlock_abi;
	bool landlock_ok;	/* a ruleset really confined a child */
	bool no_cgroup_pids;
};

/* Set F: its level, its fix (NULL: none) and its detail. */
void doctor_say(struct finding *f, enum level level, const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* What a probe child reports through its pipe. */
struct probe {
	bool ok;
	bool reported;		/* set by the parent: a report arrived */
	int err;		/* errno of the step that failed */
	int value;		/* a probe's count */
	char what[80];		/* the step that failed */
	siginfo_t end;		/* set by the parent: how the child ended */
};

typedef void probe_fn(struct probe *p, int arg);


/* The whole of a (small, /proc or /sys) file, or NULL; to be freed. */
void doctor_close_pair(int p[2]);
/* --doctor's user namespace check (doctor_userns.c). */
void doctor_check_userns(struct doctor *d, struct finding *f);
/* --doctor's check of a sandbox around hutch (doctor_nested.c). */
void doctor_check_nested(struct doctor *d, struct finding *f);

/* clone3 alone, and clone alone, with CLONE_PIDFD and SIGCHLD. */
pid_t doctor_clone3(int flags, int *pidfd);
pid_t doctor_clone(int flags, int *pidfd);
/* Collect the child through its pidfd (closed), or by pid where that
 * fails. */
void doctor_probe_reap(pid_t pid, int pidfd, siginfo_t *si);
/* Record the failed step WHAT when !OK; returns OK. */
bool doctor_probe_step(struct probe *p, const char *what, bool ok);
/* From a pidfd's fdinfo: the child's pid as /proc sees it (PROC), and
 * in its own pid namespace (the last NSpid).  False without them. */
bool doctor_probe_pidfd_pids(int pidfd, long *proc, long *own);
/* Run FN(ARG) in a child cloned with FLAGS (with its id maps written
 * when FLAGS has CLONE_NEWUSER); its report in OUT.  -1 with errno and
 * OUT->what "clone" when the clone fails. */
int doctor_probe_run(int flags, probe_fn *fn, int arg, struct probe *out);
/* "STEP: reason", or how the child ended without a report. */
const char *doctor_probe_failure(const struct probe *p, char *buf, size_t len);

#endif
