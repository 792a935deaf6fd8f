/* Test driver for helpers/hutch-init: plays hutch.  For each scenario it
 * clones pid 1 of a new pid (and mount) namespace, which forks COMMAND's
 * process (waiting for the go byte) and then execs hutch-init from a
 * sealed memfd with the fds of the interface.  The driver holds the other
 * ends of the pipes and checks what comes out.  No sleeps: pipes, pidfds
 * and poll; the only timeout is a deadline that fails a stuck scenario.
 *
 *   init_driver INIT [SCENARIO...]     run scenarios (default: all)
 *   init_driver --role ROLE [ARG]      a COMMAND used by the scenarios
 *
 * Prints "ok NAME", "FAIL NAME: why" or "skip NAME: why"; exits 1 if any
 * scenario failed. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define DEADLINE_MS 20000	/* a scenario taking longer has failed */
#define MAX_PIPES 3
#define N_ORPHANS 200
#define HOG_BYTES (256u << 20)	/* slows the non-FUSE process's exit */

struct spec {
	char *const *argv;	/* COMMAND */
	int n_pipes;		/* pipes whose write ends COMMAND gets as fd 3.. */
	int control_closed;	/* the supervisor is gone before init starts */
	int chld_ignored;	/* init starts with SIGCHLD ignored */
};

struct sandbox {
	int pidfd;		/* pid 1 */
	int control;		/* write end of the control pipe */
	int status, log;	/* read ends */
	int leak;		/* read end of a pipe that only init inherits */
	int pipes[MAX_PIPES];	/* read ends of COMMAND's pipes */
	int n_pipes;
};

struct result {
	int code;		/* exit status, or 1000 + signal */
	char status[64];
	char log[512];
	char ready[16];		/* what COMMAND's first pipe still held */
};

static void die(const char *what)
{
	fprintf(stderr, "init_driver: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void xpipe(int p[2])
{
	if (pipe2(p, O_CLOEXEC) < 0)
		die("pipe2");
}

/* Lets FD survive execve. */
static void inherit(int fd)
{
	if (fd >= 0 && fcntl(fd, F_SETFD, 0) < 0)
		die("fcntl");
}

/* ---- pid 1 and COMMAND's process, before hutch-init ---- */

/* A sealed memfd holding the init image, as hutch's seal stage makes. */
static int sealed_image(const char *path)
{
	struct stat st;
	int in = open(path, O_RDONLY | O_CLOEXEC);
	int fd = memfd_create("hutch-init", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (in < 0 || fd < 0 || fstat(in, &st) < 0)
		die(path);
	for (off_t off = 0; off < st.st_size;)
		if (sendfile(fd, in, &off, (size_t)(st.st_size - off)) <= 0)
			die("sendfile");
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) < 0)
		die("seals");
	close(in);
	return fd;
}

/* A procfs of our pid namespace that no path leads to. */
static int private_proc(void)
{
	int fs = fsopen("proc", FSOPEN_CLOEXEC), mnt;

	if (fs < 0 || fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		die("fsopen proc");
	mnt = fsmount(fs, FSMOUNT_CLOEXEC, 0);
	if (mnt < 0)
		die("fsmount proc");
	close(fs);
	return mnt;
}

/* COMMAND's process: waits for the go byte, then execs COMMAND with the
 * write ends of its pipes as fds 3.. and nothing else. */
static void command_process(const struct spec *spec, int go, const int *w)
{
	int high[MAX_PIPES];
	sigset_t none;
	char c;

	if (read(go, &c, 1) != 1 || c != 'g')
		_exit(126);
	for (int i = 0; i < spec->n_pipes; i++)
		if ((high[i] = fcntl(w[i], F_DUPFD, 64)) < 0)
			_exit(126);
	for (int i = 0; i < spec->n_pipes; i++)
		if (dup2(high[i], 3 + i) < 0)
			_exit(126);
	close_range(3 + (unsigned)spec->n_pipes, ~0U, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });
	execvp(spec->argv[0], spec->argv);
	_exit(127);
}

static void block_init_signals(void)
{
	static const int sigs[] = { SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT,
				    SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT };
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaddset(&set, sigs[i]);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

struct child_fds {
	int image, go[2], control, status, log, leak;
	int w[MAX_PIPES];
};

static void put_arg(char **argv, int *n, const char *name, int value)
{
	char buf[16];

	snprintf(buf, sizeof buf, "%d", value);
	argv[(*n)++] = strdup(name);
	argv[(*n)++] = strdup(buf);
}

/* Pid 1 of the new namespace: what hutch's child does up to the seal. */
static void pid_1(const struct spec *spec, struct child_fds *f)
{
	char *argv[20] = { "hutch-init" };
	int n = 1, proc, cmd_pidfd;
	pid_t cmd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		die("mount proc");
	proc = private_proc();
	cmd = fork();
	if (cmd < 0)
		die("fork");
	if (cmd == 0)
		command_process(spec, f->go[0], f->w);
	cmd_pidfd = pidfd_open(cmd, 0);
	if (cmd_pidfd < 0)
		die("pidfd_open");
	for (int i = 0; i < spec->n_pipes; i++)
		close(f->w[i]);
	close(f->go[0]);
	put_arg(argv, &n, "--command-pidfd", cmd_pidfd);
	put_arg(argv, &n, "--command-pid", cmd);
	put_arg(argv, &n, "--go-fd", f->go[1]);
	put_arg(argv, &n, "--control-fd", f->control);
	put_arg(argv, &n, "--proc-fd", proc);
	put_arg(argv, &n, "--status-fd", f->status);
	put_arg(argv, &n, "--log-fd", f->log);
	int pass[] = { cmd_pidfd, f->go[1], f->control, proc, f->status, f->log, f->leak };
	for (size_t i = 0; i < sizeof pass / sizeof pass[0]; i++)
		inherit(pass[i]);
	block_init_signals();
	if (spec->chld_ignored)
		signal(SIGCHLD, SIG_IGN);
	fexecve(f->image, argv, environ);
	die("fexecve");
}

/* ---- the driver's side ---- */

struct clone_args_v0 {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

static pid_t clone_sandbox(int *pidfd)
{
	struct clone_args_v0 args = {
		.flags = CLONE_PIDFD | CLONE_NEWPID | CLONE_NEWNS,
		.pidfd = (uint64_t)(uintptr_t)pidfd,
		.exit_signal = SIGCHLD,
	};

	return (pid_t)syscall(SYS_clone3, &args, sizeof args);
}

static void start(const char *init, const struct spec *spec, struct sandbox *sb)
{
	struct child_fds f;
	int control[2], status[2], log[2], leak[2], p[MAX_PIPES][2];
	pid_t pid;

	f.image = sealed_image(init);
	xpipe(f.go);
	xpipe(control);
	xpipe(status);
	xpipe(log);
	xpipe(leak);
	for (int i = 0; i < spec->n_pipes; i++)
		xpipe(p[i]);
	if (spec->control_closed)
		close(control[1]);
	f.control = control[0];
	f.status = status[1];
	f.log = log[1];
	f.leak = leak[1];
	for (int i = 0; i < spec->n_pipes; i++)
		f.w[i] = p[i][1];
	pid = clone_sandbox(&sb->pidfd);
	if (pid < 0)
		die("clone3");
	if (pid == 0) {
		if (!spec->control_closed)
			close(control[1]);
		pid_1(spec, &f);
	}
	int ours[] = { f.image, f.go[0], f.go[1], control[0], status[1], log[1], leak[1] };
	for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++)
		close(ours[i]);
	sb->control = spec->control_closed ? -1 : control[1];
	sb->status = status[0];
	sb->log = log[0];
	sb->leak = leak[0];
	sb->n_pipes = spec->n_pipes;
	for (int i = 0; i < spec->n_pipes; i++) {
		close(p[i][1]);
		sb->pipes[i] = p[i][0];
	}
}

/* Waits for FD to become readable (or hung up); 0 when it did in time. */
static int wait_readable(int fd)
{
	struct pollfd p = { fd, POLLIN, 0 };

	return poll(&p, 1, DEADLINE_MS) == 1 ? 0 : -1;
}

/* Reads FD to its end (or the deadline) into the string BUF. */
static void read_until_eof(int fd, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < size && !wait_readable(fd) && (r = read(fd, buf + n, size - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
}

/* Waits for pid 1 (killing it past the deadline) and collects its
 * status line, log and what COMMAND left unread.  Once pid 1 has gone,
 * so has every process of its namespace: the pipes are at their end. */
static void finish(struct sandbox *sb, struct result *res)
{
	siginfo_t si = { 0 };

	if (wait_readable(sb->pidfd) < 0)
		pidfd_send_signal(sb->pidfd, SIGKILL, NULL, 0);
	if (waitid(P_PIDFD, (id_t)sb->pidfd, &si, WEXITED) < 0)
		die("waitid");
	res->code = si.si_code == CLD_EXITED ? si.si_status : 1000 + si.si_status;
	read_until_eof(sb->status, res->status, sizeof res->status);
	read_until_eof(sb->log, res->log, sizeof res->log);
	res->ready[0] = '\0';
	if (sb->n_pipes)
		read_until_eof(sb->pipes[0], res->ready, sizeof res->ready);
	int fds[] = { sb->pidfd, sb->control, sb->leak, sb->status, sb->log };
	for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	for (int i = 0; i < sb->n_pipes; i++)
		close(sb->pipes[i]);
}

/* ---- scenarios ---- */

static char why[256];

static int failf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	return 1;
}

struct scenario {
	const char *name;
	const char *what;
	char *argv[6];		/* COMMAND; "/proc/self/exe" is this driver */
	int n_pipes;
	int control_closed;
	int (*skip)(void);	/* nonzero (and why set) when it cannot run here */
	int (*act)(struct sandbox *sb);	/* while COMMAND runs; nonzero fails */
	int code;		/* init's exit status */
	const char *status;	/* init's status line */
	int chld_ignored;	/* see struct spec */
};

static int check(const struct result *res, int code, const char *status)
{
	if (res->code != code)
		return failf("exit %d, want %d (status \"%s\", log \"%s\")",
			     res->code, code, res->status, res->log);
	if (strcmp(res->status, status))
		return failf("status \"%s\", want \"%s\"", res->status, status);
	if (res->log[0])
		return failf("log \"%s\"", res->log);
	if (res->ready[0])
		return failf("COMMAND wrote \"%s\" unexpectedly", res->ready);
	return 0;
}

static int run_scenario(const char *init, const struct scenario *s)
{
	struct spec spec = { s->argv, s->n_pipes, s->control_closed, s->chld_ignored };
	struct sandbox sb;
	struct result res;
	int bad;

	if (s->skip && s->skip())
		return -1;
	start(init, &spec, &sb);
	bad = s->act ? s->act(&sb) : 0;
	if (bad)
		pidfd_send_signal(sb.pidfd, SIGKILL, NULL, 0);
	finish(&sb, &res);
	return bad ? bad : check(&res, s->code, s->status);
}

/* Waits for COMMAND's "ready" byte on its first pipe. */
static int wait_ready(struct sandbox *sb)
{
	char c;

	if (wait_readable(sb->pipes[0]) < 0 || read(sb->pipes[0], &c, 1) != 1)
		return failf("COMMAND never got ready");
	return 0;
}

/* By the time COMMAND runs, init holds no fd it was not given; then a
 * SIGTERM sent to pid 1 from outside. */
static int act_sigterm(struct sandbox *sb)
{
	struct pollfd leak = { sb->leak, POLLIN, 0 };

	if (wait_ready(sb))
		return 1;
	if (poll(&leak, 1, 0) != 1 || !(leak.revents & POLLHUP))
		return failf("init kept an fd it was not given");
	return pidfd_send_signal(sb->pidfd, SIGTERM, NULL, 0) ? failf("SIGTERM") : 0;
}

static void hang_up(struct sandbox *sb)
{
	close(sb->control);
	sb->control = -1;
}

static int act_control(struct sandbox *sb)
{
	int bad = wait_ready(sb);

	hang_up(sb);
	return bad;
}

static int no_fuse(void)
{
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		snprintf(why, sizeof why, "/dev/fuse: %s", strerror(errno));
		return 1;
	}
	close(fd);
	return 0;
}

/* When the FUSE holder's pipe hangs up, the other process's must already
 * have: the holder died last. */
static int act_fuse(struct sandbox *sb)
{
	struct pollfd other = { sb->pipes[1], POLLIN, 0 };
	char got[8];

	read_until_eof(sb->pipes[0], got, sizeof got);
	if (strlen(got) != 3 || !strchr(got, 'F') || !strchr(got, 'A'))
		return failf("processes not ready (\"%s\")", got);
	hang_up(sb);
	if (wait_readable(sb->pipes[2]) < 0)
		return failf("FUSE holder never died");
	if (poll(&other, 1, 0) != 1 || !(other.revents & POLLHUP))
		return failf("FUSE holder died before the other process");
	return 0;
}

/* ---- roles: COMMANDs run inside the sandbox ---- */

/* Makes an orphan (its parent exits) that lives until RELEASE hangs up;
 * returns a pidfd for it. */
static int make_orphan(int release[2])
{
	int p[2], pidfd;
	pid_t mid, orphan;

	xpipe(p);
	mid = fork();
	if (mid < 0)
		die("fork");
	if (mid == 0) {
		orphan = fork();
		if (orphan == 0) {
			char c;

			close(release[1]);
			_exit(read(release[0], &c, 1) < 0);
		}
		_exit(write(p[1], &orphan, sizeof orphan) != sizeof orphan);
	}
	if (read(p[0], &orphan, sizeof orphan) != sizeof orphan || orphan <= 0)
		die("orphan");
	pidfd = pidfd_open(orphan, 0);
	if (pidfd < 0 || waitpid(mid, NULL, 0) < 0)
		die("orphan pidfd");
	close(p[0]);
	close(p[1]);
	return pidfd;
}

static int count_zombies(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	if (!d)
		die("/proc");
	while ((e = readdir(d))) {
		char path[300], buf[512], *p;
		int fd;
		ssize_t len;

		snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
		if (e->d_name[0] < '1' || e->d_name[0] > '9' || (fd = open(path, O_RDONLY)) < 0)
			continue;
		len = read(fd, buf, sizeof buf - 1);
		close(fd);
		buf[len > 0 ? len : 0] = '\0';
		p = strrchr(buf, ')');
		n += p && p[1] == ' ' && p[2] == 'Z';
	}
	closedir(d);
	return n;
}

/* Asks pid 1 to forward SIGWINCH back to us.  Pid 1 takes a pending
 * SIGCHLD (17) before SIGWINCH (28) and reaps at once, so when SIGWINCH
 * arrives, every orphan that had exited before we sent it is reaped. */
static void round_trip_through_init(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGWINCH);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (kill(1, SIGWINCH) < 0 || sigwait(&set, &sig))
		die("SIGWINCH");
}

/* Makes N_ORPHANS orphans, lets them exit, and checks that init reaped
 * them all while COMMAND still runs. */
static int role_orphans(void)
{
	static int pidfds[N_ORPHANS];
	int release[2], zombies;
	pid_t barrier;

	xpipe(release);
	for (int i = 0; i < N_ORPHANS; i++)
		pidfds[i] = make_orphan(release);
	close(release[1]);
	for (int i = 0; i < N_ORPHANS; i++)
		if (wait_readable(pidfds[i]) < 0)
			die("orphan exit");
	/* A fork takes the tasklist lock, so every exiting orphan's SIGCHLD
	 * to init is queued once it returns. */
	barrier = fork();
	if (barrier == 0)
		_exit(0);
	waitpid(barrier, NULL, 0);
	round_trip_through_init();
	zombies = count_zombies();
	if (zombies)
		fprintf(stderr, "%d zombies left\n", zombies);
	return zombies != 0;
}

static _Noreturn void hold_forever(void)
{
	for (;;)
		pause();
}

/* Tells the driver through fd 3 that this process is ready, as BYTE. */
static void ready(const char *byte)
{
	if (write(3, byte, 1) != 1)
		_exit(1);
	close(3);
}

/* fds: 3 ready (each process writes a byte), 4 held by a slow-exiting
 * non-FUSE process, 5 held by a FUSE holder (made first, so it has the
 * lower pid).  A fork walker (a process that forks and exits, on and on)
 * tries to outrun the kill rounds. */
static int role_fuse(void)
{
	if (fork() == 0) {
		close(4);
		ready(open("/dev/fuse", O_RDWR) < 0 ? "E" : "F");
		hold_forever();
	}
	if (fork() == 0) {
		close(5);
		if (mmap(NULL, HOG_BYTES, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0) == MAP_FAILED)
			_exit(1);
		ready("A");
		hold_forever();
	}
	if (fork() == 0) {
		close_range(3, ~0U, 0);
		for (;;)
			if (fork() != 0)
				_exit(0);
	}
	close(4);
	close(5);
	ready("r");
	hold_forever();
}

static const struct scenario scenarios[] = {
	{ "exit", "COMMAND's exit code comes out",
	  { "/bin/sh", "-c", "exit 42" }, 0, 0, NULL, NULL, 42, "exit 42\n", 0 },
	{ "chld-ignored", "started with SIGCHLD ignored, init still sees COMMAND end",
	  { "/bin/sh", "-c", "exit 42" }, 0, 0, NULL, NULL, 42, "exit 42\n", 1 },
	{ "segv", "a signal N comes out as 128+N",
	  { "/bin/sh", "-c", "kill -SEGV $$" }, 0, 0, NULL, NULL, 139, "signal 11\n", 0 },
	{ "orphans", "orphans are reaped while COMMAND runs",
	  { "/proc/self/exe", "--role", "orphans" }, 0, 0, NULL, NULL, 0, "exit 0\n", 0 },
	{ "daemon", "a daemon ignoring SIGTERM/SIGHUP is killed, init exits at once",
	  { "/bin/sh", "-c", "setsid sh -c 'trap \"\" TERM HUP; sleep 1000' & exit 7" },
	  0, 0, NULL, NULL, 7, "exit 7\n", 0 },
	{ "sigterm", "SIGTERM to pid 1 reaches COMMAND; init keeps no other fd",
	  { "/bin/sh", "-c", "trap 'exit 3' TERM; printf r >&3; sleep 1000 & wait" },
	  1, 0, NULL, act_sigterm, 3, "exit 3\n", 0 },
	{ "control", "the supervisor closing the control pipe tears down",
	  { "/bin/sh", "-c", "printf r >&3; exec sleep 1000" },
	  1, 0, NULL, act_control, 137, "signal 9\n", 0 },
	{ "control-early", "a supervisor gone before init starts: COMMAND never runs",
	  { "/bin/sh", "-c", "printf r >&3" }, 1, 1, NULL, NULL, 137, "none\n", 0 },
	{ "fuse", "a FUSE server is killed only after the others have exited",
	  { "/proc/self/exe", "--role", "fuse" }, 3, 0, no_fuse, act_fuse, 137, "signal 9\n", 0 },
};
#define N_SCENARIOS (sizeof scenarios / sizeof scenarios[0])

static int run_one(const char *init, const struct scenario *s)
{
	int rc;

	why[0] = '\0';
	rc = run_scenario(init, s);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	if (rc)
		printf("%s %s: %s\n", rc < 0 ? "skip" : "FAIL", s->name, why);
	else
		printf("ok %s - %s\n", s->name, s->what);
	fflush(stdout);
	return rc > 0;
}

static int run_named(const char *init, const char *name)
{
	for (size_t i = 0; i < N_SCENARIOS; i++)
		if (!strcmp(scenarios[i].name, name))
			return run_one(init, &scenarios[i]);
	fprintf(stderr, "init_driver: no scenario %s\n", name);
	return 1;
}

int main(int argc, char **argv)
{
	int failed = 0;

	if (argc >= 3 && !strcmp(argv[1], "--role"))
		return !strcmp(argv[2], "orphans") ? role_orphans() : role_fuse();
	if (argc < 2) {
		fprintf(stderr, "usage: init_driver INIT [SCENARIO...]\n");
		return 2;
	}
	/* Orphans of ours come back to us, not to this machine's pid 1. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (argc == 2)
		for (size_t i = 0; i < N_SCENARIOS; i++)
			failed |= run_one(argv[1], &scenarios[i]);
	for (int i = 2; i < argc; i++)
		failed |= run_named(argv[1], argv[i]);
	return failed;
}
