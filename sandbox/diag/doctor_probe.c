/* --doctor's probes: each check's operation tried for real in a
 * throwaway child, started as hutch starts pid 1 (clone3 with a pidfd,
 * in new user, mount and pid namespaces, its id maps written by the
 * parent), released by a go byte, reporting one struct probe through a
 * pipe and always reaped.  The child dies with the parent
 * (PR_SET_PDEATHSIG), so that no probe outlives --doctor. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdarg.h>

#include "doctor_probe.h"
#include "lib/lib.h"

void doctor_close_pair(int p[2])
{
	close(p[0]);
	close(p[1]);
}

/* ---- children: started as hutch starts pid 1, always reaped ---- */

pid_t doctor_clone3(int flags, int *pidfd)
{
	struct clone_args args = {
		.flags = (unsigned long long)flags | CLONE_PIDFD,
		.pidfd = (unsigned long long)(uintptr_t)pidfd,
		.exit_signal = SIGCHLD,
	};

	return (pid_t)syscall(SYS_clone3, &args, sizeof(args));
}

pid_t doctor_clone(int flags, int *pidfd)
{
	return (pid_t)syscall(SYS_clone, flags | CLONE_PIDFD | SIGCHLD, NULL, pidfd, NULL, 0);
}

/* Collect the child through its pidfd, or by pid where that fails. */
void doctor_probe_reap(pid_t pid, int pidfd, siginfo_t *si)
{
	int r = -1;

	memset(si, 0, sizeof(*si));
	if (pidfd >= 0) {
		r = waitid(P_PIDFD, (id_t)pidfd, si, WEXITED);
		close(pidfd);
	}
	if (r < 0)
		waitid(P_PID, (id_t)pid, si, WEXITED);
}

/* Record the failed step WHAT when !OK; returns OK. */
bool doctor_probe_step(struct probe *p, const char *what, bool ok)
{
	if (!ok) {
		p->err = errno;
		snprintf(p->what, sizeof(p->what), "%s", what);
	}
	return ok;
}

static _Noreturn void probe_child(int go[2], int rep[2], probe_fn *fn, int arg)
{
	struct probe p = { 0 };
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	close(go[1]);
	close(rep[0]);
	/* EOF instead of the go byte: the parent gave up on this child. */
	if (read(go[0], &c, 1) != 1)
		_exit(0);
	fn(&p, arg);
	if (write(rep[1], &p, sizeof(p)) != (ssize_t)sizeof(p))
		_exit(1);
	_exit(0);
}

/* From a pidfd's fdinfo: the child's pid as /proc sees it (PROC), and
 * in its own pid namespace (the last NSpid).  False without them. */
bool doctor_probe_pidfd_pids(int pidfd, long *proc, long *own)
{
	char path[64], *text, *pid_line, *ns_line, *s, *next;
	bool found;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	text = read_text_at(AT_FDCWD, path);
	pid_line = text ? strstr(text, "\nPid:") : NULL;
	ns_line = text ? strstr(text, "\nNSpid:") : NULL;
	found = pid_line && ns_line;
	if (found) {
		*proc = strtol(pid_line + 5, NULL, 10);
		s = ns_line + 7;
		s[strcspn(s, "\n")] = '\0';
		for (long v = strtol(s, &next, 10); next != s; v = strtol(s, &next, 10)) {
			*own = v;
			s = next;
		}
	}
	free(text);
	return found;
}

static int write_proc(long pid, const char *name, const char *text)
{
	char path[64];
	int fd, r;

	snprintf(path, sizeof(path), "/proc/%ld/%s", pid, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	r = write(fd, text, strlen(text)) < 0 ? -1 : 0;
	close(fd);
	return r;
}

/* The caller's ids become 0 inside, as hutch's nested set-up does.
 * Through the pid /proc knows (the pidfd's), whichever pid namespace
 * /proc belongs to: the proc check says when it is not ours. */
static bool write_id_maps(int pidfd, struct probe *p)
{
	char map[64];
	long pid = -1, own;

	errno = ESRCH;
	if (!doctor_probe_step(p, "the child's pid in /proc",
			       doctor_probe_pidfd_pids(pidfd, &pid, &own) && pid > 0))
		return false;
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)getuid());
	if (!doctor_probe_step(p, "write uid_map", write_proc(pid, "uid_map", map) == 0))
		return false;
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)getgid());
	return doctor_probe_step(p, "write setgroups", write_proc(pid, "setgroups", "deny") == 0) &&
	       doctor_probe_step(p, "write gid_map", write_proc(pid, "gid_map", map) == 0);
}

/* Let the child go (after its id maps with CLONE_NEWUSER), take its
 * report, reap it. */
static void probe_collect(pid_t pid, int pidfd, int flags, int go, int rep, struct probe *out)
{
	struct probe got;

	if (!(flags & CLONE_NEWUSER) || write_id_maps(pidfd, out))
		if (write(go, "g", 1) != 1)
			doctor_probe_step(out, "release the child", false);
	close(go);
	if (read(rep, &got, sizeof(got)) == (ssize_t)sizeof(got) && !out->what[0]) {
		*out = got;
		out->reported = true;
	}
	close(rep);
	doctor_probe_reap(pid, pidfd, &out->end);
}

/* Run FN(ARG) in a child made with FLAGS; its report in OUT.  Returns
 * 0, or -1 with errno (and the step "clone" in OUT) when the child could
 * not be made. */
int doctor_probe_run(int flags, probe_fn *fn, int arg, struct probe *out)
{
	int go[2], rep[2], pidfd = -1;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	if (!doctor_probe_step(out, "pipe", pipe2(go, O_CLOEXEC) == 0))
		return -1;
	if (!doctor_probe_step(out, "pipe", pipe2(rep, O_CLOEXEC) == 0)) {
		doctor_close_pair(go);
		errno = out->err;
		return -1;
	}
	pid = clone_with_pidfd(flags, &pidfd, -1);
	if (pid == 0)
		probe_child(go, rep, fn, arg);
	doctor_probe_step(out, "clone", pid > 0);
	close(go[0]);
	close(rep[1]);
	if (pid < 0) {
		close(go[1]);
		close(rep[0]);
		errno = out->err;
		return -1;
	}
	probe_collect(pid, pidfd, flags, go[1], rep[0], out);
	return 0;
}

/* "STEP: reason", or how the child ended without a report. */
const char *doctor_probe_failure(const struct probe *p, char *buf, size_t len)
{
	if (p->what[0])
		snprintf(buf, len, "%s: %s", p->what, strerror(p->err));
	else if (p->end.si_code == CLD_EXITED)
		snprintf(buf, len, "the child exited with %d before reporting", p->end.si_status);
	else
		snprintf(buf, len, "the child was killed by signal %d", p->end.si_status);
	return buf;
}

void doctor_say(struct finding *f, enum level level, const char *fix, const char *fmt, ...)
{
	va_list ap;

	f->level = level;
	snprintf(f->fix, sizeof(f->fix), "%s", fix ? fix : "");
	va_start(ap, fmt);
	vsnprintf(f->detail, sizeof(f->detail), fmt, ap);
	va_end(ap);
}
