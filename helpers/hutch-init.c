/* hutch-init: pid 1 of the sandbox's pid namespace.
 *
 * hutch execveat()s this static program from a sealed memfd in the
 * sandbox's pid 1, after forking COMMAND's process.  It lets COMMAND
 * start, forwards signals to it, reaps every orphan, and when COMMAND
 * ends (or the supervisor says so by closing the control pipe) kills
 * everything left, FUSE servers last, then exits with COMMAND's status.
 *
 *   hutch-init --command-pidfd N --command-pid N --go-fd N --control-fd N
 *              --proc-fd N [--status-fd N] [--log-fd N]
 *              [--hold-first N --hold-count N]
 *
 * --hold-first/--hold-count name a range of fds pid 1 keeps open, unused,
 * until it exits: bwrap's --lock-file locks and --sync-fd.
 *
 * Exit: COMMAND's exit code, or 128+N when signal N ended it; 137 when
 * torn down before COMMAND started; 125 when init itself failed (one
 * line "init: OBJECT: reason" on the log fd, or stderr). */
#include <limits.h>
#include <stddef.h>

#include "init_sys.h"
#include "../sandbox/lib/signal_list.h"

#define EXIT_INIT_FAILED 125
#define EXIT_TORN_DOWN (128 + SIGKILL)
#define FUSE_MAJOR 10		/* /dev/fuse */
#define FUSE_MINOR 229
#define WAIT_MAX 64		/* pidfds held per kill round */
#define ROUNDS_MAX 100		/* kill rounds before FUSE servers go too */
#define UNSET INT_MIN
#define HOLD_MAX 64		/* fds held for --lock-file and --sync-fd */

static struct {
	int cmd_pidfd, cmd_pid, go_fd, control_fd, proc_fd, status_fd, log_fd;
	int hold_first, hold_count;
	int sigfd;
	int started;		/* the go byte was sent */
	int cmd_code;		/* si_code of COMMAND's end; 0 while it lives */
	int cmd_status;
	int failed;
} g;

static const struct option {
	const char *name;
	int *dst;
	int min;		/* smallest value allowed */
	int required;
} options[] = {
	{ "--command-pidfd", &g.cmd_pidfd, 0, 1 },
	{ "--command-pid", &g.cmd_pid, 1, 1 },
	{ "--go-fd", &g.go_fd, 0, 1 },
	{ "--control-fd", &g.control_fd, 0, 1 },
	{ "--proc-fd", &g.proc_fd, -1, 1 },
	{ "--status-fd", &g.status_fd, -1, 0 },
	{ "--log-fd", &g.log_fd, -1, 0 },
	{ "--hold-first", &g.hold_first, -1, 0 },
	{ "--hold-count", &g.hold_count, -1, 0 },
};
#define N_OPTIONS (sizeof options / sizeof options[0])

static const int forwarded[] = { INIT_FORWARDED_SIGNALS };

/* ---- output ---- */

/* Appends S to the string of LEN bytes in BUF (of SIZE); returns the
 * new length.  Keeps BUF NUL-terminated, cutting S short if need be. */
static size_t append(char *buf, size_t len, size_t size, const char *s)
{
	while (*s && len + 2 < size)
		buf[len++] = *s++;
	buf[len] = '\0';
	return len;
}

static size_t append_uint(char *buf, size_t len, size_t size, unsigned v)
{
	char digits[12];
	int i = sizeof digits - 1;

	digits[i] = '\0';
	do
		digits[--i] = (char)('0' + v % 10);
	while ((v /= 10) && i > 0);
	return append(buf, len, size, digits + i);
}

static void say(const char *object, const char *reason)
{
	char line[256];
	size_t n = append(line, 0, sizeof line, "init: ");

	n = append(line, n, sizeof line, object);
	n = append(line, n, sizeof line, ": ");
	n = append(line, n, sizeof line, reason);
	line[n++] = '\n';
	(void)sys_write(g.log_fd >= 0 ? g.log_fd : 2, line, n);
}

/* ERR (an errno value) in words: the usual ones by name. */
static const char *errno_text(int err, char *buf, size_t size)
{
	static const struct { int err; const char *text; } names[] = {
		{ EPERM, "Operation not permitted" }, { ENOENT, "No such file or directory" },
		{ EBADF, "Bad file descriptor" }, { EACCES, "Permission denied" },
		{ EINVAL, "Invalid argument" }, { EMFILE, "Too many open files" },
		{ ENOMEM, "Cannot allocate memory" }, { EPIPE, "Broken pipe" },
		{ ESRCH, "No such process" }, { ENOSYS, "Function not implemented" },
	};

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].err == err)
			return names[i].text;
	append_uint(buf, append(buf, 0, size, "errno "), size, (unsigned)err);
	return buf;
}

/* Logs OBJECT with the reason for RESULT (-errno) and marks the run
 * failed. */
static void fail(const char *object, long result)
{
	char buf[24];

	say(object, errno_text((int)-result, buf, sizeof buf));
	g.failed = 1;
}

/* ---- argv ---- */

/* A decimal integer, optionally negative, no smaller than MIN. */
static int parse_int(const char *s, int min, int *out)
{
	int negative = *s == '-';
	long long v = 0;

	s += negative;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
		if (v > INT_MAX)
			return -1;
	}
	if (negative)
		v = -v;
	if (v < min)
		return -1;
	*out = (int)v;
	return 0;
}

static int streq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

static const struct option *find_option(const char *name)
{
	for (size_t i = 0; i < N_OPTIONS; i++)
		if (streq(options[i].name, name))
			return &options[i];
	return NULL;
}

static int parse_args(int argc, char **argv)
{
	for (size_t i = 0; i < N_OPTIONS; i++)
		*options[i].dst = UNSET;
	for (int i = 1; i < argc; i += 2) {
		const struct option *o = find_option(argv[i]);

		if (!o || i + 1 >= argc || parse_int(argv[i + 1], o->min, o->dst)) {
			say("argv", i + 1 < argc ? argv[i] : "missing value");
			return -1;
		}
	}
	for (size_t i = 0; i < N_OPTIONS; i++) {
		if (*options[i].dst != UNSET)
			continue;
		if (options[i].required) {
			say(options[i].name, "required");
			return -1;
		}
		*options[i].dst = -1;
	}
	return 0;
}

/* ---- set-up ---- */

/* Every fd named on the command line must be open: a wrong number from
 * the launcher would otherwise act on whatever that fd happens to be. */
static int check_fds(void)
{
	for (size_t i = 0; i < N_OPTIONS; i++) {
		int fd = *options[i].dst;

		long r;

		if (options[i].dst != &g.cmd_pid && options[i].dst != &g.hold_count &&
		    fd >= 0 && (r = sys_fcntl(fd, F_GETFD)) < 0) {
			fail(options[i].name, r);
			return -1;
		}
	}
	return 0;
}

static void sort_ints(int *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			int t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

/* Closes every fd but the named ones (and stderr when there is no log
 * fd), so pid 1 holds nothing COMMAND could reach through it. */
static void close_other_fds(void)
{
	int keep[N_OPTIONS + 1 + HOLD_MAX], n = 0;
	unsigned next = 0;

	for (size_t i = 0; i < N_OPTIONS; i++)
		if (options[i].dst != &g.cmd_pid && options[i].dst != &g.hold_count &&
		    *options[i].dst >= 0)
			keep[n++] = *options[i].dst;
	for (int i = 1; g.hold_first >= 0 && i < g.hold_count && i < HOLD_MAX; i++)
		keep[n++] = g.hold_first + i;
	if (g.log_fd < 0)
		keep[n++] = 2;
	sort_ints(keep, n);
	for (int i = 0; i < n; i++) {
		if ((unsigned)keep[i] > next)
			sys_close_range(next, (unsigned)keep[i] - 1);
		next = (unsigned)keep[i] + 1;
	}
	sys_close_range(next, ~0U);
}

/* Nonzero when the supervisor has closed the control pipe (or died). */
static int control_gone(short revents)
{
	char buf[64];

	if (revents & (POLLHUP | POLLERR | POLLNVAL))
		return 1;
	if (!(revents & POLLIN))
		return 0;
	return sys_read(g.control_fd, buf, sizeof buf) <= 0;
}

static int control_gone_now(void)
{
	struct pollfd p = { g.control_fd, POLLIN, 0 };

	return sys_poll(&p, 1, 0) != 0 && control_gone(p.revents);
}

static int take_signals(void)
{
	enum { N_FORWARDED = sizeof forwarded / sizeof forwarded[0] };
	int sigs[N_FORWARDED + 2];
	struct kernel_sigset set, blocked;
	long r;

	/* An ignored SIGCHLD (inherited across exec) would have the kernel
	 * reap COMMAND unseen, and init wait for ever. */
	r = sys_signal_default(SIGCHLD);
	if (r < 0) {
		fail("SIGCHLD", r);
		return -1;
	}
	for (int i = 0; i < N_FORWARDED; i++)
		sigs[i] = forwarded[i];
	sigs[N_FORWARDED] = SIGCHLD;
	sigs[N_FORWARDED + 1] = SIGPIPE;
	kernel_sigset(&set, sigs, N_FORWARDED + 1);
	/* Blocked, so the kernel queues them for pid 1 instead of dropping
	 * them; SIGPIPE too, so that a write to a reader that is gone
	 * returns EPIPE and nothing else. */
	kernel_sigset(&blocked, sigs, N_FORWARDED + 2);
	r = sys_sigprocmask_block(&blocked);
	if (r < 0) {
		fail("sigprocmask", r);
		return -1;
	}
	r = sys_signalfd(&set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (r < 0) {
		fail("signalfd", r);
		return -1;
	}
	g.sigfd = (int)r;
	return 0;
}

/* Lets COMMAND's process execve COMMAND: one byte, then EOF. */
static void send_go(void)
{
	long r = sys_write(g.go_fd, "g", 1);

	g.started = 1;
	if (r != 1 && r != -EPIPE)
		fail("go-fd", r);
	sys_close(g.go_fd);
	g.go_fd = -1;
}

/* Returns 0 when set up, 1 when the supervisor is already gone, -1 on
 * failure. */
static int set_up(void)
{
	long r;

	if (check_fds() < 0)
		return -1;
	if (control_gone_now())
		return 1;
	/* Not dumpable: COMMAND cannot ptrace pid 1 or open its fds and exe
	 * through /proc. */
	r = sys_prctl(PR_SET_DUMPABLE, 0);

	if (r < 0) {
		fail("dumpable", r);
		return -1;
	}
	close_other_fds();
	/* Pin no directory but the sandbox's root. */
	r = sys_chdir("/");
	if (r < 0) {
		fail("chdir", r);
		return -1;
	}
	return take_signals();
}

/* ---- run ---- */

/* Reaps children until none is left to reap now (WNOHANG) or at all. */
static void reap(int wait_flags)
{
	siginfo_t si;

	for (;;) {
		si.si_pid = 0;
		if (sys_waitid(P_ALL, 0, &si, WEXITED | wait_flags) < 0 || si.si_pid == 0)
			return;
		if (si.si_pid == g.cmd_pid) {
			g.cmd_code = si.si_code;
			g.cmd_status = si.si_status;
		}
	}
}

/* COMMAND stopped (SIGSTOP from inside, or a stop the supervisor sent
 * for the caller's Ctrl-Z): "stop N" tells the supervisor, whose pty
 * relay then stops hutch itself, so the caller's shell gets its
 * terminal back; `fg` resumes hutch, which resumes COMMAND. */
static void report_stop(void)
{
	char line[32];
	siginfo_t si;
	size_t n;

	si.si_pid = 0;
	if (g.status_fd < 0 || g.cmd_code ||
	    sys_waitid(P_PIDFD, g.cmd_pidfd, &si, WSTOPPED | WNOHANG) < 0 ||
	    si.si_pid == 0 || si.si_code != CLD_STOPPED)
		return;
	n = append_uint(line, append(line, 0, sizeof line, "stop "), sizeof line,
			(unsigned)si.si_status);
	line[n++] = '\n';
	sys_write(g.status_fd, line, n);
}

static void forward(int sig)
{
	char buf[24];
	long r;

	if (g.cmd_code)
		return;
	r = sys_pidfd_send_signal(g.cmd_pidfd, sig);

	if (r < 0 && r != -ESRCH)
		say("forward", errno_text((int)-r, buf, sizeof buf));
}

/* Handles queued signals in the order the kernel gives them (SIGCHLD
 * before any higher-numbered one).  One read per wakeup, so a storm of
 * signals from the sandbox cannot starve the control pipe. */
static int handle_signals(void)
{
	struct signalfd_siginfo si[8];
	long n = sys_read(g.sigfd, si, sizeof si);

	if (n < 0 && n != -EAGAIN) {
		fail("signalfd", n);
		return -1;
	}
	for (long i = 0; i < n / (long)sizeof si[0]; i++) {
		if (si[i].ssi_signo == SIGCHLD) {
			reap(WNOHANG);
			report_stop();
		} else
			forward((int)si[i].ssi_signo);
	}
	return 0;
}

/* Runs until COMMAND has ended, the supervisor hangs up, or a failure. */
static void run(void)
{
	struct pollfd p[2] = {
		{ g.sigfd, POLLIN, 0 },
		{ g.control_fd, POLLIN, 0 },
	};

	/* COMMAND may have ended before init took its signals: its SIGCHLD
	 * is then gone, and only a look now finds the zombie. */
	reap(WNOHANG);
	while (!g.cmd_code) {
		long r = sys_poll(p, 2, -1);

		if (r < 0 && r != -EINTR) {
			fail("poll", r);
			return;
		}
		if (p[0].revents && handle_signals() < 0)
			return;
		if (control_gone(p[1].revents))
			return;
	}
}

/* ---- teardown ---- */

typedef int entry_fn(int dir, const char *name, void *ctx);

/* Calls FN on each entry of directory DIR (closed on return) but the
 * dot ones, until FN returns nonzero; returns that. */
static int each_entry(int dir, entry_fn *fn, void *ctx)
{
	union {
		struct init_dirent64 d;
		char b[4096];
	} buf;
	long n;
	int rc = 0;

	if (dir < 0)
		return 0;
	while (!rc && (n = sys_getdents64(dir, buf.b, sizeof buf.b)) > 0) {
		for (long off = 0; !rc && off < n;) {
			struct init_dirent64 *d = (struct init_dirent64 *)(buf.b + off);

			off += d->d_reclen;
			if (d->d_name[0] != '.')
				rc = fn(dir, d->d_name, ctx);
		}
	}
	sys_close(dir);
	return rc;
}

static int is_fuse_fd(int dir, const char *name, void *ctx)
{
	struct statx st;

	(void)ctx;
	/* Cached attributes only: a file open on a stuck FUSE mount must not
	 * hang us in a request to its server. */
	return !sys_statx(dir, name, AT_STATX_DONT_SYNC, STATX_TYPE, &st) &&
	       S_ISCHR(st.stx_mode) && st.stx_rdev_major == FUSE_MAJOR &&
	       st.stx_rdev_minor == FUSE_MINOR;
}

/* Nonzero when process PID holds /dev/fuse open: a FUSE server, which
 * must outlive the processes that may still flush to it as they exit.
 * A process whose fds we may not read counts as no server. */
static int holds_fuse(int pid)
{
	char path[24];
	size_t n = append_uint(path, 0, sizeof path, (unsigned)pid);

	append(path, n, sizeof path, "/fd");
	return each_entry((int)sys_openat(g.proc_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC),
			  is_fuse_fd, NULL);
}

/* Nonzero when the process behind PIDFD has exited (a zombie or gone). */
static int has_exited(int pidfd)
{
	struct pollfd p = { pidfd, POLLIN, 0 };

	return sys_poll(&p, 1, 0) != 0;
}

struct round {
	int killed;
	int n;
	int pidfds[WAIT_MAX];
};

typedef int pid_fn(int pid, struct round *r);

struct pid_walk {
	pid_fn *fn;
	struct round *r;
};

static int pid_entry(int dir, const char *name, void *ctx)
{
	struct pid_walk *w = ctx;
	int pid;

	(void)dir;
	if (parse_int(name, 1, &pid) || pid == 1)
		return 0;
	return w->fn(pid, w->r);
}

/* Calls FN on every process of the namespace but us, until it returns
 * nonzero; returns that. */
static int each_pid(pid_fn *fn, struct round *r)
{
	struct pid_walk w = { fn, r };

	return each_entry((int)sys_openat(g.proc_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC),
			  pid_entry, &w);
}

static int is_fuse_server(int pid, struct round *r)
{
	(void)r;
	return holds_fuse(pid);
}

/* SIGKILLs PID unless it is a FUSE server or has exited; keeps its pidfd
 * to wait for its end.  Through a pidfd, so a recycled pid is never hit. */
static int kill_unless_fuse(int pid, struct round *r)
{
	int pidfd = (int)sys_pidfd_open(pid);

	if (pidfd < 0)
		return 0;
	if (has_exited(pidfd) || holds_fuse(pid) ||
	    sys_pidfd_send_signal(pidfd, SIGKILL) < 0) {
		sys_close(pidfd);
		return 0;
	}
	r->killed++;
	if (r->n < WAIT_MAX)
		r->pidfds[r->n++] = pidfd;
	else
		sys_close(pidfd);
	return 0;
}

/* One round: kill all but FUSE servers, then block (no spinning) until
 * each of them has exited.  Returns how many were killed. */
static int kill_round(void)
{
	struct round r = { 0, 0, { 0 } };

	each_pid(kill_unless_fuse, &r);
	for (int i = 0; i < r.n; i++) {
		struct pollfd p = { r.pidfds[i], POLLIN, 0 };

		while (sys_poll(&p, 1, -1) == -EINTR)
			;
		sys_close(r.pidfds[i]);
	}
	reap(WNOHANG);
	return r.killed;
}

/* Kills every process in the namespace, FUSE servers only once all the
 * others are gone (so exiting tasks can still flush to them), and reaps
 * them all.  A process that never dies blocks us here: the supervisor
 * has a deadline for that. */
static void teardown(void)
{
	int rounds = 0;

	/* Bounded: processes that fork faster than rounds kill them cost the
	 * FUSE servers their ordering, not the teardown its end. */
	if (g.proc_fd >= 0 && each_pid(is_fuse_server, NULL))
		while (kill_round() > 0 && ++rounds < ROUNDS_MAX)
			;
	sys_kill(-1, SIGKILL);
	reap(0);
}

/* ---- end ---- */

static void report_status(void)
{
	char line[32];
	size_t n;
	long r;

	if (g.status_fd < 0)
		return;
	if (!g.started || !g.cmd_code)
		n = append(line, 0, sizeof line, "none");
	else
		n = append_uint(line, append(line, 0, sizeof line,
					     g.cmd_code == CLD_EXITED ? "exit " : "signal "),
				sizeof line, (unsigned)g.cmd_status);
	line[n++] = '\n';
	/* EPIPE: the supervisor is gone, there is no one left to tell. */
	r = sys_write(g.status_fd, line, n);
	if (r != (long)n && r != -EPIPE)
		fail("status-fd", r);
}

static int exit_code(void)
{
	if (g.failed)
		return EXIT_INIT_FAILED;
	if (!g.started || !g.cmd_code)
		return EXIT_TORN_DOWN;
	if (g.cmd_code == CLD_EXITED)
		return g.cmd_status;
	return 128 + g.cmd_status;
}

int main(int argc, char **argv)
{
	/* Die with the supervisor, our parent across the pid ns boundary. */
	sys_prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (parse_args(argc, argv) < 0)
		sys_exit(EXIT_INIT_FAILED);
	/* Only pid 1 of a pid namespace: kill(-1) elsewhere would kill all
	 * of the caller's processes. */
	if (sys_getpid() != 1) {
		say("pid", "not pid 1 of a pid namespace");
		sys_exit(EXIT_INIT_FAILED);
	}
	if (set_up() == 0) {
		send_go();
		run();
	}
	teardown();
	report_status();
	sys_exit(exit_code());
}
