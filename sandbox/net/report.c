/* Violation reports.  In hutch mode the policy's refusals are seccomp user
 * notifications: COMMAND's process loads the filter with a listener and
 * hands it over the report socket (SCM_RIGHTS); the supervisor polls it
 * with everything else, answers each refusal with the policy's errno, and
 * writes one JSON line per refusal to --report FILE or --report-fd FD, at
 * most RATE a second (the rest are counted).  At exit, one line on stderr
 * says how many actions were refused.  The connect broker's calls, which
 * the filter notifies whatever the policy says, go to connect_broker.c
 * once the policy allows them; its refusals are reported like the
 * policy's. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "connect_broker.h"
#include "lib/lib.h"
#include "messages/messages.h"
#include "host/host.h"
#include "learn/learn.h"
#include "seccomp/seccomp.h"
#include "report.h"
#include "sandbox.h"

#define BATCH 64		/* notifications answered per poll wakeup */
#define RATE 100.0		/* report lines a second, on average */
#define BURST 100.0		/* report lines written at once at most */
#define LINE_MAX_LEN 2048
/* The escaped bytes kept of a line's strings: the line stays shorter
 * than LINE_MAX_LEN, and so one write to a pipe (PIPE_BUF). */
#define COMMAND_JSON_MAX 389
#define SYSCALL_JSON_MAX 149
#define RULE_JSON_MAX 589
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS	/* Linux 6.6, newer than our headers */
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif
#define TAG_LISTENER 'L'	/* the message carries the listener */
#define TAG_NESTED 'N'		/* no listener: one exists already */

struct report_state {
	int out;		/* the report, or -1 */
	bool out_regular;	/* a regular file: writing never waits */
	char *out_name;		/* "FILE" or "fd N", for messages */
	int listener;		/* seccomp listener, or -1 */
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	size_t req_size, resp_size;
	unsigned long long refused;	/* refusals answered */
	unsigned long long written;	/* of them, lines in the report */
	double tokens;		/* lines that may be written now */
	double refilled_at;	/* CLOCK_MONOTONIC of the last refill */
	char *first;		/* "NAME, FILE:LINE" of the first refusal */
	bool mount_refused;	/* a mount call among them (a sandbox inside) */
	bool write_failed;	/* said so once */
};

/* One refusal, as the report line shows it. */
struct refusal {
	const struct seccomp_notif *req;
	int errnum;
	const char *source;
	pid_t pid_inside;	/* 0: unknown */
	char comm[64];		/* "" when unknown */
};

static int report_fail(struct sandbox *sb, const char *object, int errnum)
{
	snprintf(sb->err, sizeof(sb->err), "report: %s: %s", object,
		 strerror(errnum));
	return -1;
}

static int report_fail_why(struct sandbox *sb, const char *object, const char *why)
{
	snprintf(sb->err, sizeof(sb->err), "report: %s: %s", object, why);
	return -1;
}

static void report_warn(struct sandbox *sb, const char *object,
			const char *reason)
{
	char msg[4200];

	snprintf(msg, sizeof(msg), "report: %s: %s", object, reason);
	log_line(sb->plan->prog, msg);
}

/* ---- prepare: the report and the socket ---- */

static int open_output(struct sandbox *sb, struct report_state *r)
{
	const struct plan *plan = sb->plan;
	struct stat st;

	if (plan->report_path) {
		const char *why = NULL;

		/* A new file each run, replacing what the sandbox may have
		 * planted at the name: never a link followed, a FIFO opened. */
		r->out = hostfile_create_fresh(plan->report_path, &why);
		if (r->out < 0)
			return report_fail_why(sb, plan->report_path, why);
		r->out_name = strdup(plan->report_path);
	} else if (plan->report_fd >= 0) {
		if (asprintf(&r->out_name, "fd %d", plan->report_fd) < 0)
			r->out_name = NULL;
		/* A copy of our own: the caller's fd number stays untouched. */
		r->out = fcntl(plan->report_fd, F_DUPFD_CLOEXEC, 3);
	} else {
		return 0;
	}
	if (!r->out_name)
		return report_fail(sb, "report", ENOMEM);
	if (r->out < 0 || fstat(r->out, &st) < 0)
		return report_fail(sb, r->out_name, errno);
	if ((fcntl(r->out, F_GETFL) & O_ACCMODE) == O_RDONLY)
		return report_fail(sb, r->out_name, EBADF);
	r->out_regular = S_ISREG(st.st_mode);
	return 0;
}

/* Buffers as large as the running kernel's notification structures. */
static int alloc_notif(struct sandbox *sb, struct report_state *r)
{
	struct seccomp_notif_sizes sizes = { 0 };

	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0)
		return report_fail(sb, "seccomp notification sizes", errno);
	r->req_size = sizes.seccomp_notif > sizeof(*r->req) ?
		      sizes.seccomp_notif : sizeof(*r->req);
	r->resp_size = sizes.seccomp_notif_resp > sizeof(*r->resp) ?
		       sizes.seccomp_notif_resp : sizeof(*r->resp);
	r->req = calloc(1, r->req_size);
	r->resp = calloc(1, r->resp_size);
	return r->req && r->resp ? 0 : report_fail(sb, "notification", ENOMEM);
}

int report_prepare(struct sandbox *sb)
{
	struct report_state *r;

	if (sb->plan->mode != MODE_HUTCH)
		return 0;	/* bwrap mode: bwrap has no reports */
	r = calloc(1, sizeof(*r));
	if (!r)
		return report_fail(sb, "report", ENOMEM);
	sb->report = r;
	r->out = r->listener = -1;
	r->tokens = BURST;
	r->refilled_at = monotonic_now();
	if (open_output(sb, r) < 0 || alloc_notif(sb, r) < 0 ||
	    connect_broker_prepare(sb) < 0)
		return -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
		       sb->report_sock) < 0)
		return report_fail(sb, "socketpair", errno);
	return 0;
}

/* ---- COMMAND's process: hand the listener over ---- */

static int send_message(int sock, char tag, int fd)
{
	return send_with_fd(sock, &tag, 1, fd) == 1 ? 0 : -1;
}

int report_send_listener(struct sandbox *sb, int listener)
{
	int errnum;

	if (listener == -EBUSY) {
		/* Only a note: a lost one costs the warning, nothing else. */
		if (sb->report_sock[1] >= 0)
			(void)send_message(sb->report_sock[1], TAG_NESTED, -1);
		return 0;
	}
	if (listener < 0)
		return 0;
	errnum = sb->report_sock[1] < 0 ? ENOTCONN : 0;
	if (!errnum && send_message(sb->report_sock[1], TAG_LISTENER,
				    listener) < 0)
		errnum = errno;
	/* COMMAND must not keep it: it could answer its own refusals. */
	close(listener);
	return errnum ? report_fail(sb, "listener", errnum) : 0;
}

/* ---- supervisor: answer the notifications ---- */

/* Refill the token bucket; true if a line may be written now. */
static bool take_token(struct report_state *r)
{
	double now = monotonic_now();

	r->tokens += (now - r->refilled_at) * RATE;
	if (r->tokens > BURST)
		r->tokens = BURST;
	r->refilled_at = now;
	if (r->tokens < 1.0)
		return false;
	r->tokens -= 1.0;
	return true;
}

/* Up to LEN - 1 bytes of the file NAME in the directory DIR. */
/* The pid in the sandbox's pid namespace, from the "NSpid:" line: its
 * first field is the pid as /proc sees it (checked against the
 * notification's), the next one the pid a level down, in the sandbox. */
static pid_t pid_inside(int dir, pid_t outside)
{
	char status[4096];
	char *line;
	long first, second;
	int n;

	if (read_file_at(dir, "status", status, sizeof(status)) <= 0)
		return 0;
	line = strstr(status, "\nNSpid:");
	if (!line)
		return 0;
	n = sscanf(line + 7, "%ld %ld", &first, &second);
	if (n < 1 || first != outside)
		return 0;	/* this /proc is another pid namespace's */
	return (pid_t)(n == 2 ? second : first);
}

/* Pid inside and command of the refused process.  The notification's pid
 * may be reused once the process dies: the /proc directory is trusted only
 * if the notification is still pending after it was opened. */
static void describe_process(struct report_state *r, struct refusal *ev)
{
	char path[32];
	__u64 id = ev->req->id;
	int dir;

	snprintf(path, sizeof(path), "/proc/%d", (int)ev->req->pid);
	dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return;
	if (ioctl(r->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0) {
		ev->pid_inside = pid_inside(dir, (pid_t)ev->req->pid);
		if (read_file_at(dir, "comm", ev->comm, sizeof(ev->comm)) > 0)
			ev->comm[strcspn(ev->comm, "\n")] = '\0';
	}
	close(dir);
}

/* "2025-01-31T12:00:00.123456Z" */
static void iso_time(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%06ldZ", ts.tv_nsec / 1000);
}

static void json_args(struct json_writer *w, const __u64 *args)
{
	json_begin_array(w, JSON_COMPACT);
	for (int i = 0; i < 6; i++)
		json_stringf(w, "0x%llx", (unsigned long long)args[i]);
	json_end_array(w);
}

/* S, cut short at MAX bytes (escaped), or null when S is NULL or "". */
static void json_or_null(struct json_writer *w, const char *s, size_t max)
{
	if (s && *s)
		json_string_cut(w, s, max);
	else
		json_null(w);
}

/* The line's fields; SYSCALL_NAME as libseccomp names EV's, or NULL. */
static void refusal_fields(const struct refusal *ev, const char *syscall_name,
			   struct json_writer *w)
{
	char when[40];
	const char *errname = strerrorname_np(ev->errnum);

	iso_time(when, sizeof(when));
	json_key(w, "time");
	json_string(w, when);
	json_key(w, "pid_inside");
	if (ev->pid_inside > 0)
		json_int(w, ev->pid_inside);
	else
		json_null(w);
	json_key(w, "pid_outside");
	json_uint(w, (unsigned)ev->req->pid);
	json_key(w, "command");
	json_or_null(w, ev->comm, COMMAND_JSON_MAX);
	json_key(w, "syscall");
	json_or_null(w, syscall_name, SYSCALL_JSON_MAX);
	json_key(w, "nr");
	json_int(w, ev->req->data.nr);
	json_key(w, "args");
	json_args(w, ev->req->data.args);
	json_key(w, "errno");
	json_string(w, errname ? errname : "?");
	json_key(w, "rule");
	json_or_null(w, ev->source, RULE_JSON_MAX);
}

/* EV's line into LINE, cut to fit LEN; its length, or -1 without memory. */
static int format_line(const struct refusal *ev, char *line, size_t len)
{
	char *syscall_name = seccomp_syscall_resolve_num_arch(
		SCMP_ARCH_NATIVE, ev->req->data.nr);
	char *text = NULL;
	size_t text_len = 0;
	FILE *f = open_memstream(&text, &text_len);
	struct json_writer w;
	int n = -1;

	if (f) {
		json_init(&w, f, 0);
		json_begin_object(&w, JSON_COMPACT);
		refusal_fields(ev, syscall_name, &w);
		json_end_object(&w);
		fputc('\n', f);
	}
	if (f && fclose(f) == 0)
		n = snprintf(line, len, "%s", text);
	free(text);
	free(syscall_name);
	return n < (int)len ? n : (int)len - 1;
}

/* Write LEN bytes without ever waiting (a pipe nobody reads, a full
 * socket) and without SIGPIPE, which would kill the supervisor.  0, or -1
 * with errno (EAGAIN: not writable now). */
static int write_nowait(struct report_state *r, const char *buf, size_t len)
{
	struct pollfd pfd = { .fd = r->out, .events = POLLOUT };
	const struct timespec zero = { 0, 0 };
	sigset_t pipe_set, old;
	ssize_t n;

	if (!r->out_regular && (poll(&pfd, 1, 0) != 1 || pfd.revents != POLLOUT)) {
		errno = EAGAIN;
		return -1;
	}
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe_set, &old);
	n = write(r->out, buf, len);
	if (n < 0 && errno == EPIPE)
		sigtimedwait(&pipe_set, NULL, &zero);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (n >= 0 && (size_t)n < len)
		errno = ENOSPC;
	return n == (ssize_t)len ? 0 : -1;
}

/* Write one line; a failure is said once. */
static bool emit_line(struct sandbox *sb, const char *line, size_t len)
{
	struct report_state *r = sb->report;

	if (write_nowait(r, line, len) == 0)
		return true;
	if (errno != EAGAIN && !r->write_failed) {
		r->write_failed = true;
		report_warn(sb, r->out_name, strerror(errno));
	}
	return false;
}

static void write_line(struct sandbox *sb, const struct refusal *ev)
{
	char line[LINE_MAX_LEN];
	int n = format_line(ev, line, sizeof(line));

	if (n >= 0 && emit_line(sb, line, (size_t)n))
		sb->report->written++;
}

/* The first refusal, for the summary without a report. */
static void remember_first(struct report_state *r, const struct refusal *ev)
{
	char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE,
						      ev->req->data.nr);

	if (asprintf(&r->first, "%s, %s", name ? name : "an unknown syscall",
		     ev->source ? ev->source : "the filter") < 0)
		r->first = NULL;
	free(name);
}

/* A call --allow-nested would allow: a sandbox inside starting up. */
static bool refused_mount(const struct refusal *ev)
{
	char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, ev->req->data.nr);
	bool mount = name && nested_syscall(name);

	free(name);
	return mount;
}

/* The errno the policy gives this call, 0 if it allows it. */
static int policy_errno(struct sandbox *sb, const struct seccomp_notif *req,
			const char **source)
{
	int errnum = 0;

	*source = NULL;
	if (req->data.arch == seccomp_arch_native())
		errnum = policy_refusal(sb->policy, req->data.nr,
					(const uint64_t *)req->data.args,
					source);
	return errnum > 0 ? errnum : 0;
}

/* The errno to answer, or 0 when the connect broker answered the call
 * (connect_broker.c).  The supervisor never lets a call continue that
 * the policy or the broker refuses: what the policy would allow and the
 * broker does not take is refused too (the filter and the policy
 * disagree, a bug); it would trust arguments the process can still
 * change. */
static int refusal_errno(struct sandbox *sb, int listener,
			 const struct seccomp_notif *req, const char **source)
{
	int errnum = policy_errno(sb, req, source);

	if (errnum == 0 && connect_broker_answer(sb, listener, req, &errnum, source))
		return 0;
	if (errnum == 0 && learn_answer(sb, listener, req))
		return 0;
	return errnum > 0 ? errnum : EPERM;
}

static bool answer(struct report_state *r, const struct seccomp_notif *req,
		   int errnum)
{
	memset(r->resp, 0, r->resp_size);
	r->resp->id = req->id;
	r->resp->error = -errnum;
	return ioctl(r->listener, SECCOMP_IOCTL_NOTIF_SEND, r->resp) == 0;
}

/* Receive one notification, answer it, record it. */
static void answer_one(struct sandbox *sb)
{
	struct report_state *r = sb->report;
	struct refusal ev = { .req = r->req };
	bool line;

	memset(r->req, 0, r->req_size);
	if (ioctl(r->listener, SECCOMP_IOCTL_NOTIF_RECV, r->req) < 0)
		return;	/* the caller died or was interrupted meanwhile */
	ev.errnum = refusal_errno(sb, r->listener, r->req, &ev.source);
	if (ev.errnum == 0)
		return;	/* brokered: answered, or answered when done */
	line = r->out >= 0 && take_token(r);
	if (line)
		describe_process(r, &ev);
	if (!answer(r, r->req, ev.errnum))
		return;	/* gone: the call never returned */
	if (r->refused++ == 0)
		remember_first(r, &ev);
	r->mount_refused |= refused_mount(&ev);
	learn_refused_call(sb, r->req, ev.source);
	if (line)
		write_line(sb, &ev);
}

static bool notification_pending(int listener)
{
	struct pollfd pfd = { .fd = listener, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN);
}

static void stop_listening(struct sandbox *sb)
{
	struct report_state *r = sb->report;

	loop_remove_source(sb, r->listener);
	/* No call waits any more: the broker's connects in progress go, and
	 * with them its copy of the listener's number. */
	connect_broker_finish(sb);
	close(r->listener);
	r->listener = -1;
}

/* A bounded batch per wakeup: a flood never starves the rest of the loop.
 * RECV blocks when nothing is pending, so it runs only after poll says. */
static void on_listener(struct sandbox *sb, short revents)
{
	struct report_state *r = sb->report;

	if (!(revents & POLLIN)) {
		if (revents & (POLLHUP | POLLERR | POLLNVAL))
			stop_listening(sb);	/* no process uses the filter */
		return;
	}
	for (int i = 0; i < BATCH; i++) {
		if (i > 0 && !notification_pending(r->listener))
			break;
		answer_one(sb);
	}
}

/* Only a seccomp listener is polled and answered: any other fd that came
 * over the socket is closed, never read or waited on. */
static bool is_listener(int fd)
{
	char path[32], target[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	return strcmp(target, "anon_inode:seccomp notify") == 0;
}

static void start_listening(struct sandbox *sb, int fd)
{
	struct report_state *r = sb->report;

	if (!is_listener(fd)) {
		close(fd);
		report_warn(sb, "listener", "not a seccomp listener");
		return;
	}
	r->listener = fd;
	/* The refused process and the supervisor take turns: waking one on
	 * the other's CPU makes each round trip several times shorter.  An
	 * older kernel only lacks the speed. */
	(void)ioctl(fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
		    SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	if (loop_add_source(sb, fd, POLLIN, on_listener) < 0) {
		/* Unpolled, it would leave refused calls waiting forever;
		 * closed, they fail with ENOSYS. */
		close(fd);
		r->listener = -1;
		report_warn(sb, "listener", "too many poll sources");
	}
}

static void stop_socket(struct sandbox *sb)
{
	loop_remove_source(sb, sb->report_sock[0]);
	close(sb->report_sock[0]);
	sb->report_sock[0] = -1;
}

/* The one message COMMAND's process sends: the listener, or a note that
 * none could be made.  EOF: no filter (or COMMAND never got that far).
 * The socket closes after it: nothing sent later is ever read. */
static void on_socket(struct sandbox *sb, short revents)
{
	struct report_state *r = sb->report;
	char tag = 0;
	int fd = -1;
	ssize_t n;

	(void)revents;
	n = recv_with_fd(sb->report_sock[0], &tag, 1, &fd);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	stop_socket(sb);
	if (n == 1 && tag == TAG_LISTENER && fd >= 0) {
		start_listening(sb, fd);
		return;
	}
	if (fd >= 0)
		close(fd);
	if (n == 1 && tag == TAG_NESTED && r->out >= 0)
		log_warning(sb->plan->prog, "report: a seccomp listener already "
			 "exists (nested sandbox?): refused calls are logged "
			 "by the kernel instead");
}

int report_started(struct sandbox *sb)
{
	struct report_state *r = sb->report;

	/* Once: the fallback's process comes after clone's, abandoned. */
	if (!r || sb->report_sock[0] < 0 || sb->report_sock[1] < 0)
		return 0;
	close(sb->report_sock[1]);
	sb->report_sock[1] = -1;
	if (loop_add_source(sb, sb->report_sock[0], POLLIN,
			    on_socket) < 0) {
		report_warn(sb, "socket", "too many poll sources");
		stop_socket(sb);
	}
	return 0;
}

/* ---- lines of other kinds (the network proxy's) ---- */

bool report_enabled(const struct sandbox *sb)
{
	return sb->report && sb->report->out >= 0;
}

const char *report_destination(const struct sandbox *sb)
{
	return sb->report ? sb->report->out_name : NULL;
}

void report_time(char *buf, size_t len)
{
	iso_time(buf, len);
}

bool report_write_event(struct sandbox *sb, const char *line, size_t len, bool limited)
{
	if (!report_enabled(sb) || (limited && !take_token(sb->report)))
		return false;
	return emit_line(sb, line, len);
}

/* ---- at exit ---- */

static void write_dropped(struct report_state *r)
{
	char when[40], *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct json_writer w;

	if (!f)
		return;
	iso_time(when, sizeof(when));
	json_init(&w, f, 0);
	json_begin_object(&w, JSON_COMPACT);
	json_key(&w, "time");
	json_string(&w, when);
	json_key(&w, "refused");
	json_uint(&w, r->refused);
	json_key(&w, "dropped");
	json_uint(&w, r->refused - r->written);
	json_key(&w, "reason");
	json_stringf(&w, "more than %g lines a second", RATE);
	json_end_object(&w);
	fputc('\n', f);
	if (fclose(f) == 0)
		(void)write_nowait(r, text, len);
	free(text);
}

/* A mount call refused is most often a sandbox inside (bwrap, hutch,
 * podman) starting up: name the option that allows one. */
static const char *nested_hint(const struct report_state *r)
{
	return r->mount_refused ? "; a mount call among them: a sandbox inside needs "
	       "--allow-nested" : "";
}

static void print_summary(struct sandbox *sb)
{
	struct report_state *r = sb->report;
	const char *s = r->refused == 1 ? "" : "s";
	char msg[4200];

	if (r->out_name)
		snprintf(msg, sizeof(msg), "%llu action%s refused (see %s)",
			 r->refused, s, r->out_name);
	else
		snprintf(msg, sizeof(msg), "%llu action%s refused by the "
			 "seccomp policy (first: %s)%s; use --report FILE for "
			 "details", r->refused, s, r->first ? r->first : "?",
			 nested_hint(r));
	log_warning(sb->plan->prog, msg);
}

void report_finish(struct sandbox *sb)
{
	struct report_state *r = sb->report;

	if (!r)
		return;
	/* pid 1 is gone, and with it every process that could be waiting
	 * for an answer; had one remained, closing fails its call. */
	close_fd(&r->listener);
	connect_broker_finish(sb);
	close_fd(&sb->report_sock[0]);
	close_fd(&sb->report_sock[1]);
	if (r->out >= 0 && r->written < r->refused)
		write_dropped(r);
	if (r->refused > 0)
		print_summary(sb);
	close_fd(&r->out);
	free(r->out_name);
	free(r->first);
	free(r->req);
	free(r->resp);
	free(r);
	sb->report = NULL;
}
