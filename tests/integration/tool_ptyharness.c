/* tool_ptyharness: run a command on a new pty (the "outer terminal") and
 * talk to it through the master, step by step, for t_pty.sh.
 *
 *   tool_ptyharness [STEP...] -- COMMAND [ARG...]
 *   tool_ptyharness sti TEXT     push TEXT into fd 0's input (TIOCSTI)
 *   tool_ptyharness winch        print WAITING, wait for SIGWINCH, print
 *                                the size of fd 0's terminal: W<R>x<C>W
 *
 * The outer terminal starts cooked, 24x80, as COMMAND's controlling
 * terminal in a session of its own.  Steps, in order:
 *   send:TEXT       write TEXT to the master (escapes \n \r \t \\ \xNN)
 *   expect:TEXT     wait until COMMAND's output holds TEXT (after the
 *                   previous match)
 *   resize:RxC      set the outer size to R rows, C columns; SIGWINCH
 *   kill:SIG        send signal number SIG to COMMAND
 *   stopped         wait until COMMAND is stopped (as a shell's job is)
 *   cont            continue it (SIGCONT, as fg does)
 *   raw             the outer terminal's modes differ from the start's
 *   exit:N          wait for COMMAND to exit with status N (any: any)
 *   modes           the outer terminal's modes and file status flags
 *                   (O_NONBLOCK) equal the start's
 *   input:TEXT      the outer terminal's unread input is exactly TEXT
 * Waits use poll with a deadline (PTYHARNESS_TIMEOUT seconds, 20 by
 * default), never a sleep.  Exit 0 when every step held; otherwise 1,
 * with the step and COMMAND's output so far on stderr. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static struct {
	int master, slave, pidfd;
	int start_flags;
	pid_t pid;
	int status;
	bool exited;
	struct termios start;
	char out[1 << 20];	/* COMMAND's output */
	size_t len, seen;	/* bytes held, bytes matched past */
	double deadline_s;
} h;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "ptyharness: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* Decode \n \r \t \\ \xNN in S, in place; returns the length. */
static size_t unescape(char *s)
{
	size_t o = 0;

	for (size_t i = 0; s[i]; i++) {
		if (s[i] != '\\' || !s[i + 1]) {
			s[o++] = s[i];
			continue;
		}
		switch (s[++i]) {
		case 'n': s[o++] = '\n'; break;
		case 'r': s[o++] = '\r'; break;
		case 't': s[o++] = '\t'; break;
		case 'x': {
			char hex[3] = { s[i + 1], s[i + 1] ? s[i + 2] : 0, 0 };

			s[o++] = (char)strtol(hex, NULL, 16);
			i += 2;
			break;
		}
		default: s[o++] = s[i]; break;
		}
	}
	s[o] = '\0';
	return o;
}

static void start(char **argv)
{
	struct winsize ws = { .ws_row = 24, .ws_col = 80 };

	h.master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (h.master < 0 || grantpt(h.master) < 0 || unlockpt(h.master) < 0)
		die("posix_openpt");
	h.slave = open(ptsname(h.master), O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (h.slave < 0)
		die("open slave");
	ioctl(h.master, TIOCSWINSZ, &ws);
	if (tcgetattr(h.slave, &h.start) < 0)
		die("tcgetattr");
	h.start_flags = fcntl(h.slave, F_GETFL);
	h.pid = fork();
	if (h.pid < 0)
		die("fork");
	if (h.pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* A login on a new terminal: the signals a terminal sends
		 * at their defaults, whatever this harness was started
		 * with (under nohup, hutch would rightly keep SIGHUP
		 * ignored, and the kill:1 steps would test nothing). */
		signal(SIGHUP, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		setsid();
		ioctl(h.slave, TIOCSCTTY, 0);
		for (int fd = 0; fd <= 2; fd++)
			dup2(h.slave, fd);
		execvp(argv[0], argv);
		die(argv[0]);
	}
	h.pidfd = (int)syscall(SYS_pidfd_open, h.pid, 0);
	if (h.pidfd < 0)
		die("pidfd_open");
	fcntl(h.master, F_SETFL, O_RDWR | O_NONBLOCK);
}

/* Take what the master holds now.  The harness keeps the slave open, so
 * this ends with EAGAIN, never EIO. */
static void read_output(void)
{
	ssize_t n;

	while ((n = read(h.master, h.out + h.len, sizeof(h.out) - 1 - h.len)) > 0) {
		h.len += (size_t)n;
		h.out[h.len] = '\0';
	}
}

static void reap(int flags)
{
	int status;

	if (!h.exited && waitpid(h.pid, &status, flags) == h.pid) {
		h.exited = true;
		h.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
}

/* Poll the master and COMMAND's pidfd until DONE says so or the
 * deadline passes. */
static bool wait_for(bool (*done)(const char *arg), const char *arg)
{
	double deadline = now() + h.deadline_s;

	for (;;) {
		struct pollfd p[2] = {
			{ .fd = h.master, .events = POLLIN },
			{ .fd = h.exited ? -1 : h.pidfd, .events = POLLIN },
		};
		double left = deadline - now();

		read_output();
		reap(WNOHANG);
		if (done(arg))
			return true;
		if (left <= 0)
			return false;
		poll(p, 2, (int)(left * 1000) + 1);
	}
}

/* SIGCHLD is blocked (main): a stop of COMMAND is waited for with it. */
static bool wait_stopped(void)
{
	double deadline = now() + h.deadline_s;
	sigset_t chld;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	for (;;) {
		siginfo_t si = { 0 };
		double left = deadline - now();
		struct timespec ts = { (time_t)left, (long)((left - (double)(time_t)left) * 1e9) };

		read_output();
		if (waitid(P_PID, (id_t)h.pid, &si, WSTOPPED | WNOHANG) == 0 && si.si_pid == h.pid)
			return true;
		if (left <= 0)
			return false;
		sigtimedwait(&chld, NULL, &ts);
	}
}

static bool found(const char *text)
{
	char *at = strstr(h.out + h.seen, text);

	if (at)
		h.seen = (size_t)(at - h.out) + strlen(text);
	return at != NULL;
}

static bool has_exited(const char *unused)
{
	(void)unused;
	return h.exited;
}

static bool same_modes(const struct termios *a, const struct termios *b)
{
	return a->c_iflag == b->c_iflag && a->c_oflag == b->c_oflag &&
	       a->c_cflag == b->c_cflag && a->c_lflag == b->c_lflag &&
	       memcmp(a->c_cc, b->c_cc, sizeof(a->c_cc)) == 0 &&
	       cfgetispeed(a) == cfgetispeed(b) && cfgetospeed(a) == cfgetospeed(b);
}

static bool modes_now_equal(void)
{
	struct termios t;

	if (tcgetattr(h.slave, &t) < 0)
		die("tcgetattr");
	return same_modes(&t, &h.start);
}

static bool flags_now_equal(void)
{
	int flags = fcntl(h.slave, F_GETFL);

	if (flags != h.start_flags)
		fprintf(stderr, "ptyharness: file status flags %#x, not %#x\n",
			flags, h.start_flags);
	return flags == h.start_flags;
}

static bool check_input(const char *want)
{
	char buf[256];
	int avail = 0;
	ssize_t n = 0;

	ioctl(h.slave, FIONREAD, &avail);
	if (avail > 0) {
		fcntl(h.slave, F_SETFL, O_RDWR | O_NONBLOCK);
		n = read(h.slave, buf, sizeof(buf) - 1);
	}
	buf[n > 0 ? n : 0] = '\0';
	if (strcmp(buf, want) != 0)
		fprintf(stderr, "ptyharness: outer input holds [%s]\n", buf);
	return strcmp(buf, want) == 0;
}

static bool check_exit(const char *want)
{
	if (!wait_for(has_exited, NULL))
		return false;
	read_output();
	if (strcmp(want, "any") != 0 && h.status != atoi(want)) {
		fprintf(stderr, "ptyharness: exit status %d, not %s\n", h.status, want);
		return false;
	}
	return true;
}

static bool resize(const char *arg)
{
	struct winsize ws = { 0 };
	unsigned rows, cols;

	if (sscanf(arg, "%ux%u", &rows, &cols) != 2)
		return false;
	ws.ws_row = (unsigned short)rows;
	ws.ws_col = (unsigned short)cols;
	return ioctl(h.master, TIOCSWINSZ, &ws) == 0 && kill(h.pid, SIGWINCH) == 0;
}

static bool send_text(char *text)
{
	size_t len = unescape(text);

	return write(h.master, text, len) == (ssize_t)len;
}

static bool step(char *s)
{
	char *arg = strchr(s, ':');

	if (arg)
		*arg++ = '\0';
	if (strcmp(s, "send") == 0 && arg)
		return send_text(arg);
	if (strcmp(s, "expect") == 0 && arg)
		return unescape(arg), wait_for(found, arg);
	if (strcmp(s, "resize") == 0 && arg)
		return resize(arg);
	if (strcmp(s, "kill") == 0 && arg)
		return kill(h.pid, atoi(arg)) == 0;
	if (strcmp(s, "stopped") == 0)
		return wait_stopped();
	if (strcmp(s, "cont") == 0)
		return kill(h.pid, SIGCONT) == 0;
	if (strcmp(s, "exit") == 0 && arg)
		return check_exit(arg);
	if (strcmp(s, "raw") == 0)
		return !modes_now_equal();
	if (strcmp(s, "modes") == 0)
		return modes_now_equal() && flags_now_equal();
	if (strcmp(s, "input") == 0)
		return check_input(arg ? (unescape(arg), arg) : "");
	fprintf(stderr, "ptyharness: unknown step %s\n", s);
	return false;
}

static void show_output(void)
{
	fprintf(stderr, "ptyharness: output so far:\n");
	for (size_t i = 0; i < h.len; i++) {
		unsigned char c = (unsigned char)h.out[i];

		if (c == '\n' || (c >= 32 && c < 127))
			fputc(c, stderr);
		else if (c != '\r')
			fprintf(stderr, "\\x%02x", c);
	}
	fputc('\n', stderr);
}

static void finish(void)
{
	if (!h.exited) {
		kill(h.pid, SIGKILL);
		reap(0);
	}
}

/* The TIOCSTI probe: what a sandboxed program would try. */
static int sti(const char *text)
{
	for (const char *p = text; *p; p++)
		if (ioctl(0, TIOCSTI, p) < 0) {
			printf("TIOCSTI: %s\n", strerror(errno));
			return 1;
		}
	return 0;
}

/* The resize probe: learns of a new size only through SIGWINCH.  A
 * SIGWINCH with the old size (hutch's init forwards the one the outer
 * terminal sends its process group) is waited past. */
static int winch(void)
{
	struct winsize first, ws;
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGWINCH);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (ioctl(0, TIOCGWINSZ, &first) < 0)
		return 1;
	printf("WAITING\n");
	fflush(stdout);
	do {
		if (sigwait(&set, &sig) != 0 || ioctl(0, TIOCGWINSZ, &ws) < 0)
			return 1;
	} while (ws.ws_row == first.ws_row && ws.ws_col == first.ws_col);
	printf("W%ux%uW\n", ws.ws_row, ws.ws_col);
	return 0;
}

int main(int argc, char **argv)
{
	int sep = 1;
	const char *t = getenv("PTYHARNESS_TIMEOUT");

	if (argc == 3 && strcmp(argv[1], "sti") == 0) {
		char *text = argv[2];

		unescape(text);
		return sti(text);
	}
	if (argc == 2 && strcmp(argv[1], "winch") == 0)
		return winch();
	while (sep < argc && strcmp(argv[sep], "--") != 0)
		sep++;
	if (sep + 1 >= argc) {
		fprintf(stderr, "usage: tool_ptyharness [STEP...] -- COMMAND [ARG...]\n");
		return 2;
	}
	h.deadline_s = t ? atof(t) : 20;
	{
		sigset_t chld;

		sigemptyset(&chld);
		sigaddset(&chld, SIGCHLD);
		sigprocmask(SIG_BLOCK, &chld, NULL);
	}
	start(argv + sep + 1);
	for (int i = 1; i < sep; i++) {
		char *s = strdup(argv[i]);

		if (!step(s)) {
			fprintf(stderr, "ptyharness: step failed: %s\n", argv[i]);
			show_output();
			finish();
			return 1;
		}
		free(s);
	}
	finish();
	return 0;
}
