/* --pty: COMMAND runs on a pseudo-terminal of its own; the supervisor
 * relays between its stdin/stdout and the master in its poll loop.
 *
 * The pair is made inside the sandbox when it can be: COMMAND's process
 * opens the sandbox's /dev/ptmx (its own devpts, so that `tty` names a
 * /dev/pts/N that exists in there) and hands the master to the
 * supervisor over a socket made before clone.  Where that fails (no /dev
 * in the sandbox, or Landlock refusing the new slave in the fallback),
 * COMMAND gets the slave of a pair the supervisor opened on the host's
 * devpts before clone.  Either way nothing inside holds an fd of the
 * caller's terminal, so TIOCSTI reaches only the inner pty.
 *
 * The caller's terminal is in raw mode while the relay runs; pty_finish,
 * called on every way out, drains the master and restores the terminal's
 * exact modes and the fd flags of stdin and stdout. */
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "lib/lib.h"
#include "pty.h"
#include "sandbox.h"

#define RELAY_BUF (64 * 1024)
#define PTMX_MAJOR 5
#define PTMX_MINOR 2

/* Bytes on their way from one fd to another. */
struct relay_buf {
	char data[RELAY_BUF];
	size_t start, end;
};

struct pty_state {
	int handoff[2];		/* [0] supervisor, [1] COMMAND's process */
	int host_master;	/* pair on the host's devpts, the fallback */
	int host_slave;		/* (opened before clone and Landlock) */
	int master;		/* the master relayed; -1 until handed over */
	bool has_modes;		/* stdin is a terminal: modes saved, made raw */
	bool raw;		/* raw mode is on */
	struct termios modes;	/* the caller's, restored on the way out */
	int size_fd;		/* the caller's terminal for window sizes, or -1 */
	struct winsize size;	/* last size copied to the master */
	int fl_saved;		/* how many of fl[] hold flags to restore */
	int fl[2];		/* F_GETFL of stdin and stdout */
	bool in_eof;		/* stdin ended: stop reading it */
	bool master_gone;	/* EIO on the master: every slave fd closed */
	bool at_line_start;	/* last byte sent was a newline (or none yet) */
	struct relay_buf in;	/* stdin -> master */
	struct relay_buf out;	/* master -> stdout */
};

static int pty_fail(struct sandbox *sb, const char *object)
{
	snprintf(sb->err, sizeof(sb->err), "pty: %s: %s", object, strerror(errno));
	return -1;
}

/* ---- decision and preparation (supervisor, before clone) ---- */

static bool pty_wanted(const struct plan *plan)
{
	if (plan->pty == PTY_ON)
		return true;
	if (plan->pty == PTY_OFF || plan->mode == MODE_BWRAP)
		return false;
	/* In the foreground only: a job started in the background would
	 * stop at once on raw mode (SIGTTOU) or on reading (SIGTTIN). */
	return isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) &&
	       tcgetpgrp(STDIN_FILENO) == getpgrp();
}

static struct pty_state *pty_new(void)
{
	struct pty_state *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->handoff[0] = st->handoff[1] = -1;
	st->host_master = st->host_slave = st->master = -1;
	st->size_fd = -1;
	st->at_line_start = true;
	return st;
}

static void read_caller_terminal(struct pty_state *st)
{
	if (tcgetattr(STDIN_FILENO, &st->modes) == 0)
		st->has_modes = true;
	if (ioctl(STDIN_FILENO, TIOCGWINSZ, &st->size) == 0)
		st->size_fd = STDIN_FILENO;
	else if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &st->size) == 0)
		st->size_fd = STDOUT_FILENO;
}

/* Both ends now, while every path is the host's and no Landlock rule
 * applies: the slave is what COMMAND gets when the sandbox has no ptmx. */
static int open_host_pair(struct sandbox *sb, struct pty_state *st)
{
	/* Close-on-exec: the master must never reach the sandbox. */
	st->host_master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (st->host_master < 0)
		return pty_fail(sb, "/dev/ptmx");
	if (grantpt(st->host_master) < 0 || unlockpt(st->host_master) < 0)
		return pty_fail(sb, "unlock the host pty");
	st->host_slave = ioctl(st->host_master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (st->host_slave < 0)
		return pty_fail(sb, "open the host pty's slave");
	return 0;
}

int pty_prepare(struct sandbox *sb)
{
	struct pty_state *st;

	sb->pty = NULL;
	if (!pty_wanted(sb->plan))
		return 0;
	st = pty_new();
	if (!st)
		return pty_fail(sb, "state");
	sb->pty = st;
	read_caller_terminal(st);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, st->handoff) < 0)
		return pty_fail(sb, "hand-off socket");
	return open_host_pair(sb, st);
}

/* ---- COMMAND's process: the slave as controlling terminal ---- */

/* The sandbox's own ptmx, if it has one: a character device 5:2 (the
 * devpts ptmx node or /dev/ptmx); never a FIFO or another device that
 * a bind mount might have put at that path. */
static int open_inner_master(void)
{
	struct stat st;
	int fd;

	if (stat("/dev/ptmx", &st) < 0 || !S_ISCHR(st.st_mode) ||
	    st.st_rdev != makedev(PTMX_MAJOR, PTMX_MINOR))
		return -1;
	fd = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0 && unlockpt(fd) < 0)
		close_fd(&fd);
	return fd;
}

/* A pair on the sandbox's devpts, so that `tty` names a /dev/pts/N that
 * exists in there; the slave, or -1 (*MASTER -1 too). */
static int open_inner_pair(int *master)
{
	int slave = -1;

	*master = open_inner_master();
	if (*master >= 0)
		slave = ioctl(*master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (slave < 0)
		close_fd(master);
	return slave;
}

/* One message to the supervisor: with INNER attached when there is one
 * (use it), without when the host master is to be used. */
static int send_master(struct sandbox *sb, int inner)
{
	if (send_with_fd(sb->pty->handoff[1], "m", 1, inner) != 1)
		return pty_fail(sb, "hand the master to the supervisor");
	return 0;
}

/* The caller's modes and window size, so that COMMAND starts as if on
 * the caller's terminal. */
static void copy_modes_to_slave(struct pty_state *st, int slave)
{
	struct termios t;

	if (st->has_modes) {
		tcsetattr(slave, TCSANOW, &st->modes);
	} else if (tcgetattr(slave, &t) == 0) {
		/* --pty without a terminal: input is data, not typing.  No
		 * echo of it, no CRLF for LF; lines and the EOF character
		 * still work (the relay ends input with it). */
		t.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK | ECHONL | ECHOCTL | ECHOKE);
		t.c_oflag &= ~(tcflag_t)OPOST;
		tcsetattr(slave, TCSANOW, &t);
	}
	if (st->size_fd >= 0)
		ioctl(slave, TIOCSWINSZ, &st->size);
}

/* The slave of the inner pair, or else of the host pair, with its modes
 * set before the supervisor is told which master goes with it: input it
 * relays from then on meets the final modes (no echo without a
 * terminal). */
static int open_slave(struct sandbox *sb)
{
	struct pty_state *st = sb->pty;
	int inner, slave = open_inner_pair(&inner);

	if (slave < 0) {
		slave = st->host_slave;
		st->host_slave = -1;
	}
	copy_modes_to_slave(st, slave);
	if (send_master(sb, inner) < 0)
		close_fd(&slave);
	close_fd(&inner);
	return slave;
}

static int make_controlling(struct sandbox *sb, int slave)
{
	if (setsid() < 0)
		return pty_fail(sb, "new session");
	if (ioctl(slave, TIOCSCTTY, 0) < 0)
		return pty_fail(sb, "controlling terminal");
	for (int fd = 0; fd <= 2; fd++)
		if (dup2(slave, fd) < 0)
			return pty_fail(sb, "slave on fds 0, 1, 2");
	return 0;
}

int pty_child(struct sandbox *sb)
{
	struct pty_state *st = sb->pty;
	int slave, r;

	if (!st)
		return 0;
	close_fd(&st->handoff[0]);
	slave = open_slave(sb);
	/* No master and no hand-off socket may reach COMMAND: through the
	 * master it could type into its own terminal's other side. */
	close_fd(&st->handoff[1]);
	close_fd(&st->host_master);
	close_fd(&st->host_slave);
	if (slave < 0)
		return -1;
	/* Its own session, the slave its controlling terminal: the caller's
	 * terminal is out of reach (TIOCSTI, CVE-2017-5226). */
	r = make_controlling(sb, slave);
	if (slave > 2)
		close(slave);
	return r;
}

/* ---- the relay (supervisor) ---- */

static size_t buf_len(const struct relay_buf *b)
{
	return b->end - b->start;
}

static size_t buf_room(const struct relay_buf *b)
{
	return sizeof(b->data) - b->end;
}

/* Read from FD into B's room (never empty here); returns read's result. */
static ssize_t buf_fill(struct relay_buf *b, int fd, size_t room)
{
	ssize_t n = read(fd, b->data + b->end, room);

	if (n > 0)
		b->end += (size_t)n;
	return n;
}

/* Write what B holds to FD; returns write's result. */
static ssize_t buf_flush(struct relay_buf *b, int fd)
{
	ssize_t n;

	if (buf_len(b) == 0)
		return 0;
	n = write(fd, b->data + b->start, buf_len(b));
	if (n > 0)
		b->start += (size_t)n;
	if (b->start == b->end)
		b->start = b->end = 0;
	return n;
}

/* Room for input, keeping two bytes for the end-of-file characters. */
static size_t in_room(const struct pty_state *st)
{
	size_t room = buf_room(&st->in);

	return room > 2 ? room - 2 : 0;
}

static bool transient(void)
{
	return errno == EAGAIN || errno == EINTR;
}

static void on_stdin(struct sandbox *sb, short revents);
static void restore_caller(struct pty_state *st);
static void set_nonblocking(struct pty_state *st);
static int make_raw(struct sandbox *sb, struct pty_state *st);
static void on_master(struct sandbox *sb, short revents);
static void on_stdout(struct sandbox *sb, short revents);
static void drain(struct sandbox *sb, struct pty_state *st);

static void watch(struct sandbox *sb, int fd, short events,
		  void (*on_ready)(struct sandbox *sb, short revents))
{
	loop_remove_source(sb, fd);
	if (fd >= 0 && events)
		loop_add_source(sb, fd, events, on_ready);
}

/* Poll each fd for what the buffers allow now: never an fd that has
 * nothing to do (POLLHUP would spin the loop). */
static void rearm(struct sandbox *sb)
{
	struct pty_state *st = sb->pty;
	bool live = st->master >= 0 && !st->master_gone;
	short master_events = 0;

	if (live && buf_room(&st->out) > 0)
		master_events |= POLLIN;
	if (live && buf_len(&st->in) > 0)
		master_events |= POLLOUT;
	watch(sb, STDIN_FILENO, live && !st->in_eof && in_room(st) > 0 ? POLLIN : 0, on_stdin);
	watch(sb, st->master, master_events, on_master);
	watch(sb, STDOUT_FILENO, buf_len(&st->out) > 0 ? POLLOUT : 0, on_stdout);
}

static void copy_window_size(struct pty_state *st)
{
	struct winsize ws;

	if (st->size_fd < 0 || st->master < 0 || ioctl(st->size_fd, TIOCGWINSZ, &ws) < 0)
		return;
	if (memcmp(&ws, &st->size, sizeof(ws)) == 0)
		return;
	st->size = ws;
	ioctl(st->master, TIOCSWINSZ, &ws);
}

void pty_on_winch(struct sandbox *sb)
{
	if (sb->pty)
		copy_window_size(sb->pty);
}

static void queue_byte(struct relay_buf *b, char c)
{
	if (buf_room(b) > 0)
		b->data[b->end++] = c;
}

/* End of input becomes the terminal's EOF character; a partial line
 * needs one to be read and a second to read as end of file. */
static void queue_eof(struct pty_state *st)
{
	struct termios t;
	char eof = 4;	/* ^D */

	st->in_eof = true;
	if (tcgetattr(st->master, &t) == 0 && t.c_cc[VEOF] != _POSIX_VDISABLE)
		eof = (char)t.c_cc[VEOF];
	if (!st->at_line_start)
		queue_byte(&st->in, eof);
	queue_byte(&st->in, eof);
}

/* Input COMMAND's terminal refuses for good is dropped. */
static void write_master(struct pty_state *st)
{
	if (buf_flush(&st->in, st->master) < 0 && !transient())
		st->in.start = st->in.end = 0;
}

/* The inner terminal's foreground process group when it would discard
 * the caller's Ctrl-Z, else 0.  COMMAND leads a session whose parent,
 * pid 1, is outside it: its process group is orphaned, and the kernel
 * drops every SIGTSTP sent to it.  A job of a shell inside is not, nor
 * is a program that took ISIG off to read ^Z itself (an editor, ssh). */
static pid_t orphaned_foreground(struct pty_state *st)
{
	pid_t pgrp = tcgetpgrp(st->master);
	int peer;
	struct termios t;
	bool isig;

	if (pgrp <= 0 || tcgetsid(st->master) != pgrp)
		return 0;
	peer = ioctl(st->master, TIOCGPTPEER, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (peer < 0)
		return 0;
	isig = tcgetattr(peer, &t) == 0 && (t.c_lflag & ISIG);
	close(peer);
	return isig ? pgrp : 0;
}

/* The caller's suspend character in the N bytes just read at the end of
 * ST->in: where the sandbox would lose it, COMMAND is stopped instead
 * (and hutch with it, pty_on_command_stop) and the byte dropped. */
static void take_suspend(struct pty_state *st, size_t n)
{
	cc_t susp = st->modes.c_cc[VSUSP];
	char *from = st->in.data + st->in.end - n, *at;
	pid_t pgrp;

	if (!st->has_modes || !(st->modes.c_lflag & ISIG) || susp == _POSIX_VDISABLE ||
	    !(at = memchr(from, susp, n)) || !(pgrp = orphaned_foreground(st)))
		return;
	/* What came after it is dropped, as a terminal flushes its input
	 * on a signal character. */
	st->in.end = (size_t)(at - st->in.data);
	kill(-pgrp, SIGSTOP);
}

/* COMMAND stopped: stop hutch too, with the caller's terminal as it was,
 * so the caller's shell gets it back, as with a plain command (sudo's
 * pty mode does the same).  `fg` continues hutch here, which puts the
 * relay back and continues the inner foreground. */
void pty_on_command_stop(struct sandbox *sb)
{
	struct pty_state *st = sb->pty;
	pid_t pgrp;

	if (!st || st->master < 0)
		return;
	/* What COMMAND wrote before it stopped reaches the caller before
	 * hutch stops: the stop can be read before the master's output. */
	drain(sb, st);
	restore_caller(st);
	kill(getpid(), SIGSTOP);
	set_nonblocking(st);
	if (make_raw(sb, st) < 0)
		restore_caller(st);
	copy_window_size(st);
	pgrp = tcgetpgrp(st->master);
	if (pgrp <= 0 || kill(-pgrp, SIGCONT) < 0)
		syscall(SYS_pidfd_send_signal, sb->pid1_fd, SIGCONT, NULL, 0);
}

static void on_stdin(struct sandbox *sb, short revents)
{
	struct pty_state *st = sb->pty;
	ssize_t n;

	(void)revents;
	if (st->master < 0 || st->master_gone || st->in_eof || in_room(st) == 0)
		return;
	/* A resize that came before these bytes reaches COMMAND first. */
	copy_window_size(st);
	n = buf_fill(&st->in, STDIN_FILENO, in_room(st));
	if (n > 0) {
		take_suspend(st, (size_t)n);
		if (buf_len(&st->in) > 0)
			st->at_line_start = st->in.data[st->in.end - 1] == '\n';
	} else if (n == 0 || !transient()) {
		queue_eof(st);
	}
	write_master(st);
	rearm(sb);
}

/* Returns false when the master has nothing to read now. */
static bool master_read(struct pty_state *st)
{
	ssize_t n;

	if (buf_room(&st->out) == 0)
		return false;
	n = buf_fill(&st->out, st->master, buf_room(&st->out));
	/* EIO (or EOF): no slave fd is open any more, COMMAND and all it
	 * started are gone; whatever they wrote has been read. */
	if (n == 0 || (n < 0 && !transient()))
		st->master_gone = true;
	return n > 0;
}

/* stdout is gone: hang up COMMAND's terminal, as a closed connection
 * would, rather than let it write into a full pty for ever. */
static void hang_up(struct sandbox *sb, struct pty_state *st)
{
	loop_remove_source(sb, st->master);
	close_fd(&st->master);
	st->master_gone = true;
	st->out.start = st->out.end = 0;
}

static void write_stdout(struct sandbox *sb, struct pty_state *st)
{
	if (buf_flush(&st->out, STDOUT_FILENO) < 0 && !transient())
		hang_up(sb, st);
}

/* Read while the master has output and the buffer room, then pass it
 * on at once: one poll round per buffer, not per 4 KiB the tty gives. */
static void on_master(struct sandbox *sb, short revents)
{
	struct pty_state *st = sb->pty;

	if (st->master < 0)
		return;
	if (revents & POLLOUT)
		write_master(st);
	if (revents & (POLLIN | POLLHUP | POLLERR)) {
		while (master_read(st))
			;
		write_stdout(sb, st);
	}
	rearm(sb);
}

static void on_stdout(struct sandbox *sb, short revents)
{
	(void)revents;
	write_stdout(sb, sb->pty);
	rearm(sb);
}

/* The master COMMAND's process handed over, or -1: a message without one
 * means the host master; no message means set-up failed before. */
static int receive_master(struct pty_state *st)
{
	char byte;
	int fd = -1, ptn;

	if (recv_with_fd(st->handoff[0], &byte, 1, &fd) != 1) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* Relay only a pty master, whatever arrives on the socket. */
	if (fd >= 0 && ioctl(fd, TIOCGPTN, &ptn) < 0)
		close_fd(&fd);
	if (fd < 0) {
		fd = st->host_master;
		st->host_master = -1;
	}
	close_fd(&st->host_master);
	return fd;
}

/* Non-blocking stdin and stdout, so that a slow side never stalls the
 * loop; their flags are put back by pty_finish. */
static void set_nonblocking(struct pty_state *st)
{
	for (int fd = 0; fd <= 1; fd++) {
		st->fl[fd] = fcntl(fd, F_GETFL);
		if (st->fl[fd] < 0)
			return;
		st->fl_saved = fd + 1;
		fcntl(fd, F_SETFL, st->fl[fd] | O_NONBLOCK);
	}
}

static void on_handoff(struct sandbox *sb, short revents)
{
	struct pty_state *st = sb->pty;

	(void)revents;
	st->master = receive_master(st);
	loop_remove_source(sb, st->handoff[0]);
	close_fd(&st->handoff[0]);
	if (st->master < 0)
		return;
	fcntl(st->master, F_SETFL, fcntl(st->master, F_GETFL) | O_NONBLOCK);
	memset(&st->size, 0, sizeof(st->size));
	copy_window_size(st);
	set_nonblocking(st);
	rearm(sb);
}

static int make_raw(struct sandbox *sb, struct pty_state *st)
{
	struct termios raw = st->modes;

	if (!st->has_modes)
		return 0;
	cfmakeraw(&raw);
	if (tcsetattr(STDIN_FILENO, TCSADRAIN, &raw) < 0)
		return pty_fail(sb, "raw mode");
	st->raw = true;
	return 0;
}

int pty_start(struct sandbox *sb)
{
	struct pty_state *st = sb->pty;

	if (!st)
		return 0;
	close_fd(&st->handoff[1]);
	/* Only the sandbox holds a slave now: EIO on the master means it is done. */
	close_fd(&st->host_slave);
	/* After clone, so COMMAND keeps the caller's SIGPIPE: a closed
	 * stdout must end the relay, not kill hutch with the terminal raw. */
	signal(SIGPIPE, SIG_IGN);
	if (loop_add_source(sb, st->handoff[0], POLLIN, on_handoff) < 0) {
		errno = ENOSPC;
		return pty_fail(sb, "poll source");
	}
	return make_raw(sb, st);
}

/* ---- every way out ---- */

/* Wait until FD is ready for EVENTS, but not past DEADLINE. */
static bool wait_fd(int fd, short events, double deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	double left = deadline - monotonic_now();

	if (left <= 0)
		return false;
	return poll(&p, 1, (int)(left * 1000) + 1) > 0;
}

/* What COMMAND wrote before it ended goes out before hutch returns,
 * within the teardown deadline (a stdout that takes nothing, a writer
 * that never stops). */
static void drain(struct sandbox *sb, struct pty_state *st)
{
	double deadline = monotonic_now() + sb->plan->teardown_deadline;

	while ((buf_len(&st->out) > 0 || !st->master_gone) && monotonic_now() < deadline) {
		if (buf_len(&st->out) == 0) {
			if (!master_read(st))
				return;
			continue;
		}
		if (buf_flush(&st->out, STDOUT_FILENO) < 0 &&
		    (!transient() || !wait_fd(STDOUT_FILENO, POLLOUT, deadline)))
			return;
	}
}

/* The caller's modes back even if hutch was moved to the background
 * meanwhile: with SIGTTOU blocked, tcsetattr is not refused. */
static void restore_modes(struct pty_state *st)
{
	sigset_t ttou, old;

	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &old);
	tcsetattr(STDIN_FILENO, TCSADRAIN, &st->modes);
	sigprocmask(SIG_SETMASK, &old, NULL);
	st->raw = false;
}

static void restore_caller(struct pty_state *st)
{
	for (int fd = st->fl_saved - 1; fd >= 0; fd--)
		fcntl(fd, F_SETFL, st->fl[fd]);
	st->fl_saved = 0;
	if (st->raw)
		restore_modes(st);
}

void pty_finish(struct sandbox *sb)
{
	struct pty_state *st = sb->pty;

	if (!st)
		return;
	if (st->master >= 0)
		drain(sb, st);
	restore_caller(st);
	close_fd(&st->master);
	close_fd(&st->host_master);
	close_fd(&st->host_slave);
	close_fd(&st->handoff[0]);
	close_fd(&st->handoff[1]);
	free(st);
	sb->pty = NULL;
}
