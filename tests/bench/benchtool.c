/* benchtool: the measuring half of tests/bench/run.  Each command is a
 * file of NUL-separated argv (absolute program path first).  The tool is a
 * subreaper and reaps every process a launch leaves, so CPU time covers
 * the whole tree (pid 1 of the sandbox included), not just the launcher.
 *
 *   benchtool time ROUNDS CMD...  one line per CMD: median wall µs,
 *                                 median CPU µs of the tree, failures,
 *                                 median absolute deviation of wall µs;
 *                                 each round runs the CMDs in a new
 *                                 random order, after one warm-up round;
 *                                 with BENCH_RAW=FILE, each launch is
 *                                 also a line "CMD ROUND WALL CPU" there
 *                                 (CMD counted from 0), for per-round
 *                                 ratios
 *   benchtool burst N CMD         N launches released at once: wall ms,
 *                                 failures
 *   benchtool mounts N CMD        N launches one by one while polling
 *                                 /proc/self/mountinfo (POLLPRI): events
 *   benchtool peak CMD            peak RSS (kB) of the launcher and of its
 *                                 first child (pid 1), exit status
 *
 * Peak RSS: ru_maxrss of reaped children is a maximum over a whole
 * subtree, so it cannot tell the launcher from pid 1.  "peak" runs one
 * launch under ptrace instead and reads VmHWM from /proc/PID/status at
 * every execve entry and at exit (PTRACE_EVENT_EXIT, the address space
 * still there): the peak of each process over all its address spaces,
 * which is what ru_maxrss would say of that process alone. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct cmd {
	char **argv;
	long *wall, *cpu;	/* µs, one per round */
	int fails;
};

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

static char **read_argv(const char *file)
{
	static char buf[1 << 20];
	int fd = open(file, O_RDONLY);
	ssize_t len = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	char **argv = calloc((size_t)(len > 0 ? len : 0) + 2, sizeof(char *));
	char *copy;
	int n = 0;

	if (len <= 0 || !argv)
		die(file);
	close(fd);
	copy = malloc((size_t)len + 1);
	memcpy(copy, buf, (size_t)len);
	copy[len] = '\0';
	for (ssize_t off = 0; off < len; off += (ssize_t)strlen(copy + off) + 1)
		argv[n++] = copy + off;
	return argv;
}

/* Fork CMD with stdin and stdout on /dev/null; stderr stays.  With a
 * GATE pipe, CMD starts when its write end closes. */
static pid_t spawn(char **argv, const int *gate)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		char c;

		dup2(null, 0);
		dup2(null, 1);
		if (gate && (close(gate[1]) < 0 || read(gate[0], &c, 1) < 0))
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static long cpu_children_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_CHILDREN, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000L +
	       ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

/* Reap everything, LAUNCHER and whatever was reparented to us; return
 * LAUNCHER's status and when it ended (in *ENDED). */
static int reap_all(pid_t launcher, long *ended)
{
	int st, status = -1;
	pid_t w;

	while ((w = waitpid(-1, &st, __WALL)) > 0 || (w < 0 && errno == EINTR))
		if (w == launcher) {
			*ended = now_us();
			status = st;
		}
	return status;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

static long median(long *v, int n)
{
	qsort(v, (size_t)n, sizeof(long), cmp_long);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void run_one(struct cmd *c, int round)
{
	long cpu0 = cpu_children_us(), t0 = now_us(), t1 = t0;
	int st = reap_all(spawn(c->argv, NULL), &t1);

	if (round < 0)
		return;
	c->wall[round] = t1 - t0;
	c->cpu[round] = cpu_children_us() - cpu0;
	c->fails += st != 0;
}

static void write_raw(const struct cmd *cmds, int n, int rounds)
{
	const char *path = getenv("BENCH_RAW");
	FILE *f = path ? fopen(path, "w") : NULL;

	if (!f)
		return;
	for (int i = 0; i < n; i++)
		for (int r = 0; r < rounds; r++)
			fprintf(f, "%d %d %ld %ld\n", i, r, cmds[i].wall[r], cmds[i].cpu[r]);
	fclose(f);
}

static int cmd_time(int rounds, int n, char **files)
{
	struct cmd *cmds = calloc((size_t)n, sizeof(*cmds));
	int *order = calloc((size_t)n, sizeof(int));
	unsigned seed = (unsigned)(getpid() ^ now_us());

	for (int i = 0; i < n; i++) {
		cmds[i].argv = read_argv(files[i]);
		cmds[i].wall = calloc((size_t)rounds, sizeof(long));
		cmds[i].cpu = calloc((size_t)rounds, sizeof(long));
		order[i] = i;
	}
	for (int r = -1; r < rounds; r++) {	/* round -1: warm-up */
		for (int i = n - 1; i > 0; i--) {
			int j = rand_r(&seed) % (i + 1), t = order[i];

			order[i] = order[j];
			order[j] = t;
		}
		for (int i = 0; i < n; i++)
			run_one(&cmds[order[i]], r);
	}
	write_raw(cmds, n, rounds);
	for (int i = 0; i < n; i++) {
		long m = median(cmds[i].wall, rounds);

		printf("%ld %ld %d ", m, median(cmds[i].cpu, rounds), cmds[i].fails);
		for (int r = 0; r < rounds; r++)
			cmds[i].wall[r] = labs(cmds[i].wall[r] - m);
		printf("%ld\n", median(cmds[i].wall, rounds));
	}
	return 0;
}

static int cmd_burst(int n, const char *file)
{
	char **argv = read_argv(file);
	pid_t *pids = calloc((size_t)n, sizeof(pid_t));
	int gate[2], fails = 0, st;
	long t0;
	pid_t w;

	if (pipe(gate) < 0)
		die("pipe");
	for (int i = 0; i < n; i++)
		pids[i] = spawn(argv, gate);
	close(gate[0]);
	t0 = now_us();
	close(gate[1]);		/* EOF: all of them go at once */
	while ((w = waitpid(-1, &st, __WALL)) > 0 || (w < 0 && errno == EINTR))
		for (int i = 0; i < n; i++)
			if (w == pids[i])
				fails += st != 0;
	printf("%.1f %d\n", (double)(now_us() - t0) / 1000, fails);
	return 0;
}

static int cmd_mounts(int n, const char *file)
{
	char **argv = read_argv(file);
	struct pollfd pfd[2];
	int events = 0;
	long ended;

	pfd[0].fd = open("/proc/self/mountinfo", O_RDONLY);
	pfd[0].events = POLLPRI;
	if (pfd[0].fd < 0)
		die("/proc/self/mountinfo");
	poll(pfd, 1, 0);	/* start from the current state */
	for (int i = 0; i < n; i++) {
		pid_t pid = spawn(argv, NULL);

		pfd[1].fd = (int)syscall(SYS_pidfd_open, pid, 0);
		pfd[1].events = POLLIN;
		do {
			if (poll(pfd, 2, -1) < 0 && errno != EINTR)
				die("poll");
			events += !!(pfd[0].revents & (POLLPRI | POLLERR));
		} while (!(pfd[1].revents & POLLIN));
		close(pfd[1].fd);
		reap_all(pid, &ended);
	}
	events += poll(pfd, 1, 100) > 0;	/* a late one */
	printf("%d\n", events);
	return 0;
}

static long vm_hwm_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

static int cmd_peak(const char *file)
{
	char **argv = read_argv(file);
	long peak_root = 0, peak_pid1 = 0, peak_other = 0;
	pid_t root, pid1 = 0, w;
	int st, status = -1, started = 0;
	pid_t seen[4096];
	int n_seen = 0;

	root = fork();
	if (root == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 1);
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		execv(argv[0], argv);
		_exit(127);
	}
	seen[n_seen++] = root;
	if (waitpid(root, &st, 0) != root)
		die("waitpid");
	ptrace(PTRACE_SETOPTIONS, root, 0, PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK |
	       PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
	       PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL);
	ptrace(PTRACE_SYSCALL, root, 0, 0);
	while ((w = waitpid(-1, &st, __WALL)) > 0 || (w < 0 && errno == EINTR)) {
		int sig = 0, event = st >> 16, known = 0;
		long kb = -1;

		if (w < 0)
			continue;
		if (!WIFSTOPPED(st)) {
			if (w == root)
				status = st;
			continue;
		}
		for (int i = 0; i < n_seen; i++)
			known |= seen[i] == w;
		if (!known && n_seen < 4096)
			seen[n_seen++] = w;
		if (WSTOPSIG(st) == (SIGTRAP | 0x80)) {
			struct __ptrace_syscall_info si;

			if (ptrace(PTRACE_GET_SYSCALL_INFO, w, sizeof(si), &si) > 0 &&
			    si.op == PTRACE_SYSCALL_INFO_ENTRY &&
			    (si.entry.nr == SYS_execve || si.entry.nr == SYS_execveat))
				kb = vm_hwm_kb(w);
		} else if (WSTOPSIG(st) == SIGTRAP && event) {
			unsigned long msg = 0;

			if (event == PTRACE_EVENT_EXIT)
				kb = vm_hwm_kb(w);
			if (event == PTRACE_EVENT_EXEC && w == root)
				started = 1;
			if (w == root && !pid1 && (event == PTRACE_EVENT_FORK ||
			    event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_VFORK) &&
			    ptrace(PTRACE_GETEVENTMSG, w, 0, &msg) == 0)
				pid1 = (pid_t)msg;
		} else if (!(WSTOPSIG(st) == SIGSTOP && !known)) {
			sig = WSTOPSIG(st);	/* a signal for it: deliver */
		}
		if (kb >= 0 && w == root && started)
			peak_root = kb > peak_root ? kb : peak_root;
		else if (kb >= 0 && w == pid1)
			peak_pid1 = kb > peak_pid1 ? kb : peak_pid1;
		else if (kb >= 0 && w != root)
			peak_other = kb > peak_other ? kb : peak_other;
		ptrace(PTRACE_SYSCALL, w, 0, sig);
	}
	printf("%ld %ld %ld %d\n", peak_root, peak_pid1, peak_other, status);
	return 0;
}

int main(int argc, char **argv)
{
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		die("subreaper");
	if (argc >= 4 && strcmp(argv[1], "time") == 0)
		return cmd_time(atoi(argv[2]), argc - 3, argv + 3);
	if (argc == 4 && strcmp(argv[1], "burst") == 0)
		return cmd_burst(atoi(argv[2]), argv[3]);
	if (argc == 4 && strcmp(argv[1], "mounts") == 0)
		return cmd_mounts(atoi(argv[2]), argv[3]);
	if (argc == 3 && strcmp(argv[1], "peak") == 0)
		return cmd_peak(argv[2]);
	fprintf(stderr, "usage: benchtool time ROUNDS CMD... | burst N CMD | "
		"mounts N CMD | peak CMD\n");
	return 2;
}
