/* --learn, the supervisor's side (see learn.h): the channels, the calls
 * let continue, the records counted, the host looked up, FILE written. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <poll.h>
#include <pwd.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "learn.h"
#include "learn_observer.h"
#include "learn_record.h"
#include "learn_text.h"
#include "host/host.h"
#include "lib/lib.h"
#include "limits/limits.h"
#include "messages/messages.h"
#include "seccomp/seccomp.h"
#include "sandbox.h"

#define MAX_ENTRIES 4096	/* paths kept; more are counted as lost */
#define MAX_CALLS 256
#define MAX_NETS 256
#define BATCH 64		/* records taken per wakeup */
#define LOOKUP_SECONDS 3.0	/* the host lookups' deadline, all of them */
#define MAX_PENDING 64		/* calls waiting for the observer at once */
#define PENDING_SECONDS 0.5	/* the longest a call waits for it */
#define TICK_NS 100000000L	/* the deadline's timer, while calls wait */
#define SLOW_MAX 3		/* deadlines passed before calls wait no more */

#define PID_CACHE 1024		/* host pid -> pid in the sandbox, direct-mapped */

/* A call held until the observer has read its path. */
struct pending {
	uint32_t seq;		/* 0: a free slot */
	__u64 id;
	double since;
};

struct learn_state {
	int out;		/* FILE */
	int req[2];		/* pipe: [1] supervisor -> [0] observer */
	int rec[2];		/* seqpacket: [1] observer -> [0] supervisor */
	struct seccomp_notif_resp *resp;
	size_t resp_size;
	struct learn_entry *entries;
	size_t n_entries;
	struct learn_call *calls;
	size_t n_calls;
	struct learn_net *nets;
	size_t n_nets;
	char *home;		/* the caller's, canonical */
	char *file_real;	/* FILE, canonical (NULL: not resolved) */
	char **homes;		/* every other form or home (learn_homes) */
	size_t n_homes;
	unsigned long long dropped;
	bool polled;
	int listener;		/* a copy of the seccomp listener, or -1 */
	int timer;		/* ticks while calls wait */
	bool ticking, timer_polled;
	bool waiting;		/* calls wait for the observer (until it is gone or slow) */
	unsigned slow;		/* deadlines passed */
	bool watched;		/* a watched call reached the supervisor */
	bool acked;		/* the observer answered one */
	uint32_t next_seq;
	struct pending pending[MAX_PENDING];
	/* /proc/PID/status read once per thread: a host pid is reused only
	 * once the kernel's pid counter wraps, and a wrong pid only makes
	 * the observer read another process of the sandbox */
	struct { pid_t host, inside; } pids[PID_CACHE];
};

static int learn_fail(struct sandbox *sb, const char *object, const char *why)
{
	snprintf(sb->err, sizeof(sb->err), "learn: %s: %s", object, why);
	return -1;
}

/* ---- prepare, attach ---- */

static int make_channels(struct sandbox *sb, struct learn_state *l)
{
	if (pipe2(l->req, O_CLOEXEC) < 0 || fcntl(l->req[1], F_SETFL, O_NONBLOCK) < 0)
		return learn_fail(sb, "request pipe", strerror(errno));
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, l->rec) < 0 ||
	    fcntl(l->rec[0], F_SETFL, O_NONBLOCK) < 0)
		return learn_fail(sb, "record socket", strerror(errno));
	return 0;
}

static int alloc_response(struct sandbox *sb, struct learn_state *l)
{
	struct seccomp_notif_sizes sizes = { 0 };

	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0)
		return learn_fail(sb, "seccomp notification sizes", strerror(errno));
	l->resp_size = sizes.seccomp_notif_resp > sizeof(*l->resp) ?
		       sizes.seccomp_notif_resp : sizeof(*l->resp);
	l->resp = calloc(1, l->resp_size);
	return l->resp ? 0 : learn_fail(sb, "notification", strerror(ENOMEM));
}

/* FILE must not be a profile the run uses: it would include itself. */
static bool is_a_profile_used(const struct plan *plan, const char *path)
{
	char *real = realpath(path, NULL);
	bool used = false;

	for (size_t i = 0; real && i < plan->n_profiles_used; i++)
		used |= strcmp(real, plan->profiles_used[i]) == 0;
	free(real);
	return used;
}

static void add_home(struct learn_state *l, const char *home)
{
	char *h;

	if (!home || home[0] != '/')
		return;
	h = xstrdup(home);
	learn_home_trim(h);
	learn_path_normalize(h);	/* /home/./bob, /home//bob: as learned paths are */
	if (strcmp(h, "/") == 0) {
		free(h);
		return;
	}
	l->homes = xreallocarray(l->homes, l->n_homes + 1, sizeof(*l->homes));
	l->homes[l->n_homes++] = h;
}

/* The homes no line may propose whole or read a secret of: the caller's
 * canonical (the paths learned are canonical: a $HOME through a link or
 * with a trailing slash must still match), as given, /home, and every
 * user's in /etc/passwd (hutch run as root reads them all).  Passwd's homes
 * are taken as written, normalized; their canonical forms (a home through
 * a link) are added by the lookup child (resolve_homes): resolving them
 * could wait on an automount. */
static void learn_homes(struct learn_state *l, const char *given)
{
	struct passwd *pw;
	FILE *pwf;

	if (given) {
		char *real = realpath(given, NULL);

		l->home = xstrdup(real ? real : given);
		learn_home_trim(l->home);
		free(real);
	}
	add_home(l, given);
	add_home(l, "/home");
	/* /etc/passwd read as a file (hutch is linked statically: no NSS) */
	pwf = fopen("/etc/passwd", "re");
	while (pwf && (pw = fgetpwent(pwf)))
		add_home(l, pw->pw_dir);
	if (pwf)
		fclose(pwf);
}

/* The bind of the plan that FILE's directory lies in, or NULL (free it). */
static char *bind_holding(const struct plan *plan, const char *path)
{
	char *copy = xstrdup(path), *slash = strrchr(copy, '/'), *dir, *found = NULL;

	if (slash)
		*(slash == copy ? slash + 1 : slash) = '\0';
	dir = realpath(slash ? copy : ".", NULL);
	for (size_t i = 0; dir && !found && i < plan->n_ops; i++) {
		const struct fs_op *op = &plan->ops[i];
		char *src = (op->kind == FS_BIND || op->kind == FS_MIRROR) && op->src ?
			    realpath(op->src, NULL) : NULL;

		if (src && path_within(dir, src))
			found = xstrdup(op->src);
		free(src);
	}
	free(dir);
	free(copy);
	return found;
}

/* FILE where a sandbox sees it tells COMMAND, in the next run, which
 * host paths exist (every line names one): said once. */
static void warn_if_seen(const struct sandbox *sb, const char *path)
{
	char *src = bind_holding(sb->plan, path), msg[4200];

	if (!src)
		return;
	snprintf(msg, sizeof(msg), "learn: %s lies in %s, which the sandbox sees: a later run "
		 "can read which host paths exist from it; keep FILE outside (~/.config/hutch/, "
		 "/tmp)", path, src);
	log_warning(sb->plan->prog, msg);
	free(src);
}

int learn_prepare(struct sandbox *sb)
{
	const char *path = sb->plan->learn_path, *why = NULL;
	struct learn_state *l;

	if (!path || sb->plan->mode != MODE_HUTCH)
		return 0;
	if (is_a_profile_used(sb->plan, path))
		return learn_fail(sb, path, "a profile this run uses: write what is learned to "
				  "another file (it includes this one)");
	l = calloc(1, sizeof(*l));
	if (!l)
		return learn_fail(sb, path, strerror(ENOMEM));
	sb->learn = l;
	l->req[0] = l->req[1] = l->rec[0] = l->rec[1] = l->listener = -1;
	l->waiting = true;
	l->timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (l->timer < 0)
		return learn_fail(sb, "timer", strerror(errno));
	/* As --report FILE: a new file, never a link followed or a FIFO
	 * opened, whatever the sandbox planted at the name. */
	l->out = hostfile_create_fresh(path, &why);
	if (l->out < 0)
		return learn_fail(sb, path, why);
	warn_if_seen(sb, path);
	l->file_real = realpath(path, NULL);
	/* before the sandbox runs: nothing on $HOME's path is its yet */
	learn_homes(l, sb->plan->guard_home);
	if (make_channels(sb, l) < 0 || alloc_response(sb, l) < 0)
		return -1;
	return 0;
}

int learn_attach(struct sandbox *sb)
{
	if (!sb->learn)
		return 0;
	close_fd(&sb->learn->req[0]);
	close_fd(&sb->learn->rec[1]);
	return 0;
}

/* ---- COMMAND's process: the observer ---- */

/* In the observer: its ends at 3 (requests), 4 (records) and 5 (ready),
 * nothing else open but /dev/null as 0, 1 and 2 (COMMAND's terminal is
 * not its). */
static int keep_only(int in, int out, int ready)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (dup2(in, 100) < 0 || dup2(out, 101) < 0 || dup2(ready, 102) < 0 ||
	    dup2(100, 3) < 0 || dup2(101, 4) < 0 || dup2(102, 5) < 0)
		return -1;
	for (int fd = 0; fd < 3; fd++)
		if (null >= 0 ? dup2(null, fd) < 0 : close(fd) < 0)
			return -1;
	return syscall(SYS_close_range, 6, ~0U, 0) < 0 ? -1 : 0;
}

static void run_observer(struct sandbox *sb, int ready) __attribute__((noreturn));
static void run_observer(struct sandbox *sb, int ready)
{
	struct learn_state *l = sb->learn;
	char err[512];

	/* Reparented to pid 1 (its parent exits): COMMAND never sees it as
	 * a child of its own. */
	if (fork() != 0)
		_exit(0);
	if (keep_only(l->req[0], l->rec[1], ready) < 0)
		_exit(1);
	/* Out of COMMAND's session and process group (no signal from the
	 * terminal), and not dumpable: COMMAND cannot ptrace it or write
	 * into its memory.  Before the policy, which may refuse these. */
	setsid();
	prctl(PR_SET_NAME, "hutch-learn");
	prctl(PR_SET_DUMPABLE, 0);
	/* No stronger than COMMAND before it reads a byte of COMMAND's. */
	if (policy_apply(sb->plan, sb->policy, err, sizeof(err)) < 0)
		_exit(1);
	prctl(PR_SET_DUMPABLE, 0);	/* again, should the policy's capabilities have reset it */
	(void)!write(5, "r", 1);
	close(5);
	learn_observer_run(3, 4);
}

/* COMMAND goes on once the observer runs (or failed: EOF). */
int learn_command(struct sandbox *sb)
{
	struct learn_state *l = sb->learn;
	int status, ready[2];
	char c;
	pid_t pid;

	if (!l || sb->fallback)
		return 0;
	if (pipe2(ready, O_CLOEXEC) < 0)
		return learn_fail(sb, "observer", strerror(errno));
	pid = fork();
	if (pid < 0)
		return learn_fail(sb, "observer", strerror(errno));
	if (pid == 0)
		run_observer(sb, ready[1]);
	close(ready[1]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	while (read(ready[0], &c, 1) < 0 && errno == EINTR)
		;
	close(ready[0]);
	close_fd(&l->req[0]);
	close_fd(&l->rec[1]);
	return 0;
}

/* ---- supervisor: the calls let continue ---- */

/* The pid in the sandbox's pid namespace, from the last field of
 * "NSpid:" (kernel text); 0 when unknown.  Trusted only if the call
 * still waits once it is read: the pid was not reused meanwhile. */
static pid_t pid_inside(int listener, const struct seccomp_notif *req)
{
	char path[32], status[4096];
	__u64 id = req->id;

	snprintf(path, sizeof(path), "/proc/%u/status", req->pid);
	if (read_file_at(AT_FDCWD, path, status, sizeof(status)) <= 0 ||
	    ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) < 0)
		return 0;
	return learn_nspid_last(status);
}

static pid_t cached_pid_inside(struct learn_state *l, int listener,
				const struct seccomp_notif *req)
{
	unsigned slot = req->pid % PID_CACHE;

	if (l->pids[slot].host != (pid_t)req->pid || l->pids[slot].inside == 0) {
		l->pids[slot].host = (pid_t)req->pid;
		l->pids[slot].inside = pid_inside(listener, req);
	}
	return l->pids[slot].inside;
}

static void let_continue(struct learn_state *l, int listener, __u64 id)
{
	memset(l->resp, 0, l->resp_size);
	l->resp->id = id;
	l->resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, l->resp);
}

static struct pending *slot_of(struct learn_state *l, uint32_t seq)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (l->pending[i].seq == seq)
			return &l->pending[i];
	return NULL;
}

static void set_ticking(struct learn_state *l, bool on)
{
	struct itimerspec its = { 0 };

	if (on == l->ticking)
		return;
	if (on) {
		its.it_value.tv_nsec = TICK_NS;
		its.it_interval.tv_nsec = TICK_NS;
	}
	if (timerfd_settime(l->timer, 0, &its, NULL) == 0)
		l->ticking = on;
}

/* Let the call in SLOT go on, and free it. */
static void release(struct learn_state *l, struct pending *slot)
{
	let_continue(l, l->listener, slot->id);
	slot->seq = 0;
}

static void release_all(struct learn_state *l)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (l->pending[i].seq)
			release(l, &l->pending[i]);
	set_ticking(l, false);
}

static struct pending *free_slot(struct learn_state *l)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (!l->pending[i].seq)
			return &l->pending[i];
	return NULL;
}

/* The call REQ waits in a slot; false when it cannot (no slot, no copy
 * of the listener): then it goes on at once. */
static bool hold(struct learn_state *l, int listener, const struct seccomp_notif *req,
		 struct learn_request *rq)
{
	struct pending *slot = l->waiting ? free_slot(l) : NULL;

	if (!slot)
		return false;
	if (l->listener < 0)
		l->listener = fcntl(listener, F_DUPFD_CLOEXEC, 3);
	if (l->listener < 0)
		return false;
	if (++l->next_seq == 0)
		l->next_seq = 1;
	slot->seq = rq->seq = l->next_seq;
	slot->id = req->id;
	slot->since = monotonic_now();
	set_ticking(l, true);
	return true;
}

/* The policy allows these calls: letting one go on decides nothing the
 * filter would not have.  The supervisor never reads the caller's
 * memory, only the kernel's fields, and never waits on the observer: the
 * call waits (until the observer has read its path and acks, or the
 * deadline passes), the loop does not. */
bool learn_answer(struct sandbox *sb, int listener, const struct seccomp_notif *req)
{
	struct learn_state *l = sb->learn;
	struct learn_request rq = { 0 };
	bool held;

	if (!l || req->data.arch != seccomp_arch_native() ||
	    !learn_observer_knows(req->data.nr))
		return false;
	l->watched = true;
	rq.pid = (uint32_t)cached_pid_inside(l, listener, req);
	rq.outer_pid = req->pid;
	if (rq.pid == 0 || l->req[1] < 0) {
		let_continue(l, listener, req->id);
		return true;
	}
	held = hold(l, listener, req, &rq);
	rq.nr = req->data.nr;
	memcpy(rq.args, req->data.args, sizeof(rq.args));
	if (write(l->req[1], &rq, sizeof(rq)) != (ssize_t)sizeof(rq)) {
		l->dropped++;	/* the observer is behind */
		if (held)
			release(l, slot_of(l, rq.seq));
		else
			let_continue(l, listener, req->id);
		return true;
	}
	if (!held)
		let_continue(l, listener, req->id);
	return true;
}

/* The observer is done with SEQ (or says so: a forged ack only lets an
 * allowed call go on early). */
static void on_ack(struct learn_state *l, uint32_t seq)
{
	struct pending *slot = seq ? slot_of(l, seq) : NULL;

	if (slot)
		release(l, slot);
}

/* A tick: calls past the deadline go on; an observer that keeps them
 * waiting makes them wait no more. */
static void on_tick(struct sandbox *sb, short revents)
{
	struct learn_state *l = sb->learn;
	double now = monotonic_now();
	uint64_t ticks;
	bool any = false;

	(void)revents;
	(void)!read(l->timer, &ticks, sizeof(ticks));
	for (int i = 0; i < MAX_PENDING; i++) {
		struct pending *p = &l->pending[i];

		if (p->seq && now - p->since >= PENDING_SECONDS) {
			release(l, p);
			if (++l->slow >= SLOW_MAX)
				l->waiting = false;
		}
		any |= p->seq != 0;
	}
	if (!any)
		set_ticking(l, false);
}

/* ---- supervisor: what was learned, counted ---- */

static void add_event(struct learn_state *l, const struct learn_event *ev)
{
	struct learn_entry *e;

	for (size_t i = 0; i < l->n_entries; i++) {
		e = &l->entries[i];
		if (e->kind == ev->kind && strcmp(e->path, ev->path) == 0) {
			e->count++;
			return;
		}
	}
	if (l->n_entries == MAX_ENTRIES) {
		l->dropped++;
		return;
	}
	l->entries = xreallocarray(l->entries, l->n_entries + 1, sizeof(*l->entries));
	e = &l->entries[l->n_entries++];
	memset(e, 0, sizeof(*e));
	e->kind = ev->kind;
	e->path = xstrdup(ev->path);
	memcpy(e->comm, ev->comm, sizeof(e->comm));
	e->count = 1;
	e->host = e->parent_host = LEARN_HOST_UNKNOWN;
}

/* Whole records only, each checked: a malformed one is dropped. */
static bool take_records(struct sandbox *sb, int max)
{
	struct learn_state *l = sb->learn;
	struct learn_record buf;
	struct learn_event ev;

	for (int i = 0; i < max; i++) {
		/* One byte more than a record: a longer message is cut, and
		 * refused as one. */
		char raw[sizeof(buf) + 1];
		ssize_t n = recv(l->rec[0], raw, sizeof(raw), MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN;
		if (n == 0)
			return false;
		if (n == (ssize_t)sizeof(struct learn_ack)) {
			struct learn_ack ack;

			memcpy(&ack, raw, sizeof(ack));
			if (ack.magic == LEARN_ACK_MAGIC)
				on_ack(l, ack.seq);
			l->acked |= ack.magic == LEARN_ACK_MAGIC;
			continue;
		}
		if (learn_record_check(raw, (size_t)n, &ev))
			add_event(l, &ev);
		else
			l->dropped++;
	}
	return true;
}

/* The observer is gone (or its socket failed): nothing waits for it. */
static void stop_polling(struct sandbox *sb)
{
	struct learn_state *l = sb->learn;

	l->waiting = false;
	release_all(l);
	if (l->polled)
		loop_remove_source(sb, l->rec[0]);
	if (l->timer_polled)
		loop_remove_source(sb, l->timer);
	l->polled = l->timer_polled = false;
}

static void on_records(struct sandbox *sb, short revents)
{
	if (!take_records(sb, BATCH) || (revents & (POLLERR | POLLNVAL)))
		stop_polling(sb);
}

int learn_start(struct sandbox *sb)
{
	struct learn_state *l = sb->learn;

	if (!l || l->rec[0] < 0)
		return 0;
	if (loop_add_source(sb, l->rec[0], POLLIN, on_records) < 0)
		return learn_fail(sb, "record socket", "too many poll sources");
	l->polled = true;
	if (loop_add_source(sb, l->timer, POLLIN, on_tick) < 0)
		return learn_fail(sb, "timer", "too many poll sources");
	l->timer_polled = true;
	return 0;
}

/* Text of the sandbox's or the caller's for a comment: one line. */
static char *one_line(const char *s)
{
	char *c = xstrdup(s ? s : "the policy");

	for (char *p = c; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return c;
}

void learn_refused_call(struct sandbox *sb, const struct seccomp_notif *req, const char *source)
{
	struct learn_state *l = sb->learn;
	char *name, path[32], comm[LEARN_COMM_MAX + 1] = "";
	struct learn_call *c;
	ssize_t n;
	int fd;

	if (!l || req->data.arch != seccomp_arch_native())
		return;
	name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, req->data.nr);
	for (size_t i = 0; name && i < l->n_calls; i++)
		if (strcmp(l->calls[i].name, name) == 0) {
			l->calls[i].count++;
			free(name);
			return;
		}
	if (!name || l->n_calls == MAX_CALLS) {
		free(name);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%u/comm", req->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, comm, LEARN_COMM_MAX) : -1;
	if (fd >= 0)
		close(fd);
	l->calls = xreallocarray(l->calls, l->n_calls + 1, sizeof(*l->calls));
	c = &l->calls[l->n_calls++];
	memset(c, 0, sizeof(*c));
	c->name = name;
	c->rule = one_line(source);
	learn_comm_clean(comm, n > 0 ? strcspn(comm, "\n") : 0, c->comm);
	c->count = 1;
	c->nested = nested_syscall(name);
}

void learn_refused_net(struct sandbox *sb, const char *host, int port)
{
	struct learn_state *l = sb->learn;
	struct learn_net *n;

	if (!l || !host || !learn_host_valid(host))
		return;
	for (size_t i = 0; i < l->n_nets; i++)
		if (l->nets[i].port == port && strcmp(l->nets[i].host, host) == 0) {
			l->nets[i].count++;
			return;
		}
	if (l->n_nets == MAX_NETS)
		return;
	l->nets = xreallocarray(l->nets, l->n_nets + 1, sizeof(*l->nets));
	n = &l->nets[l->n_nets++];
	n->host = xstrdup(host);
	n->port = port;
	n->count = 1;
}

/* ---- at the end: the host looked up ---- */

/* Mounts whose lookups may wait forever on a process (a FUSE server, an
 * automount daemon): the lookup child never walks into them. */
struct stuck_mounts {
	char **v;
	size_t n;
	bool *risky;
};

/* A mount point of /proc/self/mountinfo, its octal escapes undone. */
static char *unescape_mount_point(const char *s, size_t n)
{
	char *out = malloc(n + 1), *o = out;

	for (size_t i = 0; out && i < n; i++) {
		if (s[i] == '\\' && i + 3 < n + 1 && s[i + 1] >= '0' && s[i + 1] <= '3') {
			*o++ = (char)(((s[i + 1] - '0') << 6) | ((s[i + 2] - '0') << 3) | (s[i + 3] - '0'));
			i += 3;
		} else {
			*o++ = s[i];
		}
	}
	if (out)
		*o = '\0';
	return out;
}

static bool risky_fstype(const char *type, size_t n)
{
	return (n >= 4 && strncmp(type, "fuse", 4) == 0) || (n == 6 && strncmp(type, "autofs", 6) == 0);
}

/* One mountinfo line: "ID PARENT MAJ:MIN ROOT POINT OPTS [TAGS] - TYPE ...". */
static void add_mount_line(struct stuck_mounts *m, const char *line)
{
	const char *point = line, *end, *type;

	for (int field = 0; field < 4 && point; field++)
		if ((point = strchr(point, ' ')))
			point++;
	type = strstr(line, " - ");
	if (!point || !type || !(end = strchr(point, ' ')))
		return;
	type += 3;
	m->v = xreallocarray(m->v, m->n + 1, sizeof(*m->v));
	m->risky = xreallocarray(m->risky, m->n + 1, sizeof(*m->risky));
	m->v[m->n] = unescape_mount_point(point, (size_t)(end - point));
	m->risky[m->n] = risky_fstype(type, strcspn(type, " "));
	if (m->v[m->n])
		m->n++;
}

static void read_mounts(struct stuck_mounts *m)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;

	while (f && getline(&line, &cap, f) > 0)
		add_mount_line(m, line);
	free(line);
	if (f)
		fclose(f);
}

/* Is PATH's deepest mount (the last listed wins a tie) a FUSE or an
 * autofs one? */
static bool on_stuck_mount(const struct stuck_mounts *m, const char *path)
{
	size_t best = 0;
	bool risky = false;

	for (size_t i = 0; i < m->n; i++)
		if (path_within(path, m->v[i]) && strlen(m->v[i]) >= best) {
			best = strlen(m->v[i]);
			risky = m->risky[i];
		}
	return risky;
}

/* PATH opened without following any symbolic link the sandbox may have
 * planted (ELOOP: a link on the way); -1 with errno. */
static int open_no_links(const char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};

	return (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
}

/* Is REL (".cargo/credentials") there below the directory DFD, or can
 * that not be told (a link on its way, openat2 missing)?  Never follows
 * a link. */
static bool there_beneath(int dfd, const char *rel)
{
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, dfd, rel, &how, sizeof(how));

	if (fd >= 0)
		close(fd);
	return fd >= 0 || (errno != ENOENT && errno != ENOTDIR && errno != EACCES);
}

/* Does NAME, an entry of the directory DFD, hold a home's secret (.ssh
 * itself, .cargo/credentials of .cargo)? */
static bool secret_entry(int dfd, const char *name)
{
	size_t n = strlen(name);
	const char *rel;

	for (size_t i = 0; (rel = learn_home_secret(i)); i++)
		if (strncmp(rel, name, n) == 0 && (rel[n] == '\0' || rel[n] == '/') &&
		    there_beneath(dfd, rel))
			return true;
	return false;
}

#define DIR_SCAN_MAX 4096	/* entries a directory is scanned for channels */

/* LEARN_HOLDS_CHANNEL when the directory FD holds a socket, FIFO or
 * device right in it (a ro-bind of it would let the sandbox write into
 * the FIFO); LEARN_HOLDS_SECRET when a home's secret is there below one
 * of its entries (.ssh, .aws/, .config/gh: a dotfiles checkout, a home's
 * backup), which a bind of it would let the sandbox read. */
static int scan_entries(int fd)
{
	int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *de;
	int found = 0;

	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	for (int n = 0; n < DIR_SCAN_MAX && (de = readdir(d)); n++) {
		struct stat st;
		unsigned char t = de->d_type;

		if (!(found & LEARN_HOLDS_SECRET) && secret_entry(dirfd(d), de->d_name))
			found |= LEARN_HOLDS_SECRET;
		if (t == DT_UNKNOWN && fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			t = S_ISFIFO(st.st_mode) ? DT_FIFO : S_ISSOCK(st.st_mode) ? DT_SOCK :
			    S_ISCHR(st.st_mode) ? DT_CHR : S_ISBLK(st.st_mode) ? DT_BLK : DT_REG;
		if (t == DT_FIFO || t == DT_SOCK || t == DT_CHR || t == DT_BLK)
			found |= LEARN_HOLDS_CHANNEL;
	}
	closedir(d);
	return found;
}

static bool is_at(int fd, const char *name, mode_t type)
{
	struct stat st;

	return fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && (st.st_mode & S_IFMT) == type;
}

/* Is the directory FD a git directory itself (a bare repository, or one
 * a .git file names), whatever its name?  git runs its hooks. */
static bool is_git_dir(int fd)
{
	return is_at(fd, "HEAD", S_IFREG) && (is_at(fd, "objects", S_IFDIR) ||
					       is_at(fd, "refs", S_IFDIR));
}

#define GITDIR_FILE_MAX 4096	/* bytes of a .git file read */

/* Does DIR's .git file (FD's) name a git directory inside DIR, as
 * written or through a link, or one that cannot be told (unreadable, no
 * gitdir: line)?  Read without following a link, bounded, never blocking
 * on a FIFO planted there; resolved in the lookup child, under its
 * deadline. */
static bool gitdir_inside(int fd, const char *dir)
{
	struct open_how how = {
		.flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH,
	};
	char buf[GITDIR_FILE_MAX + 1], target[2 * GITDIR_FILE_MAX + 2];
	int gfd = (int)syscall(SYS_openat2, fd, ".git", &how, sizeof(how));
	ssize_t n = gfd >= 0 ? read(gfd, buf, GITDIR_FILE_MAX) : -1;
	const char *g;

	if (gfd >= 0)
		close(gfd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	if (strncmp(buf, "gitdir:", 7) != 0)
		return true;
	g = buf + 7 + strspn(buf + 7, " \t");
	buf[strcspn(buf, "\r\n")] = '\0';
	if (g[0] == '/')
		snprintf(target, sizeof(target), "%s", g);
	else
		snprintf(target, sizeof(target), "%s/%s", dir, g);
	learn_path_normalize(target);
	if (path_within(target, dir))
		return true;
	/* named elsewhere, through a link back into DIR */
	char *real = realpath(target, NULL);
	bool inside = real && path_within(real, dir);

	free(real);
	return inside;
}

/* What a directory FD at PATH holds that a line must know of
 * (learn_text.h). */
static char dir_flags(int fd, const char *path)
{
	struct stat st;
	int flags = 0;

	if (fstatat(fd, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0)
		flags |= S_ISDIR(st.st_mode) || S_ISREG(st.st_mode) ? LEARN_HOLDS_GIT :
			 LEARN_HOLDS_GIT_ODD;
	if ((flags & LEARN_HOLDS_GIT) && S_ISREG(st.st_mode) && gitdir_inside(fd, path))
		flags |= LEARN_HOLDS_GITDIR_IN;
	if (is_git_dir(fd))
		flags |= LEARN_HOLDS_BARE;
	flags |= scan_entries(fd);
	return (char)(LEARN_FLAGS_BASE + flags);
}

/* PATH on the host, in the lookup child: opened only as O_PATH (and a
 * directory read), never through a link, never written; its type into
 * ANSWER[0], what it holds into ANSWER[1]. */
static void host_type(const struct stuck_mounts *m, const char *path, char answer[2])
{
	struct stat st;
	int fd;

	answer[0] = LEARN_HOST_UNKNOWN;
	answer[1] = LEARN_FLAGS_BASE;
	if (on_stuck_mount(m, path))
		return;
	fd = open_no_links(path);
	if (fd < 0) {
		answer[0] = errno == ELOOP ? LEARN_HOST_LINK : errno == ENOSYS ? LEARN_HOST_UNKNOWN :
			    LEARN_HOST_MISSING;
		return;
	}
	if (fstat(fd, &st) < 0)
		answer[0] = LEARN_HOST_UNKNOWN;
	else if (S_ISLNK(st.st_mode))
		answer[0] = LEARN_HOST_LINK;
	else if (S_ISSOCK(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) ||
		 S_ISBLK(st.st_mode))
		answer[0] = LEARN_HOST_SOCKET;
	else if (S_ISDIR(st.st_mode)) {
		answer[0] = LEARN_HOST_DIR;
		answer[1] = dir_flags(fd, path);
	} else
		answer[0] = LEARN_HOST_FILE;
	close(fd);
}

/* In the lookup child, after the entries' answers: each home that
 * resolves to another path (through a link), that path and a newline to
 * fd 3.  Only ever adds homes to refuse, so a link the sandbox planted
 * on a home's way can only make the profile stricter. */
static void resolve_homes(const struct learn_state *l)
{
	for (size_t i = 0; i < l->n_homes; i++) {
		char *real = realpath(l->homes[i], NULL);
		bool other = real && strcmp(real, l->homes[i]) != 0 && !strchr(real, '\n');

		if (other && (write(3, real, strlen(real)) < 0 || write(3, "\n", 1) != 1))
			_exit(1);
		free(real);
	}
}

/* The lookup child: the caller's rights, none of the supervisor's fds,
 * no_new_privs, four bytes a path (the entry's type and flags, its
 * directory's) to OUT. */
static void look_up_child(struct learn_state *l, int out) __attribute__((noreturn));
static void look_up_child(struct learn_state *l, int out)
{
	struct stuck_mounts m = { 0 };
	char *last_dir = NULL, last[2];

	if (dup2(out, 3) < 0 || syscall(SYS_close_range, 4, ~0U, 0) < 0 ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		_exit(1);
	read_mounts(&m);
	for (size_t i = 0; i < l->n_entries; i++) {
		char *dir = xstrdup(l->entries[i].path), *slash = strrchr(dir, '/');
		char four[4];

		if (slash)
			*(slash == dir ? slash + 1 : slash) = '\0';
		host_type(&m, l->entries[i].path, four);
		/* the entries of one directory often come together: its
		 * answer (a scan of its entries) is reused */
		if (last_dir && strcmp(dir, last_dir) == 0) {
			memcpy(four + 2, last, 2);
			free(dir);
		} else {
			host_type(&m, dir, four + 2);
			memcpy(last, four + 2, 2);
			free(last_dir);
			last_dir = dir;
		}
		if (write(3, four, 4) != 4)
			_exit(1);
	}
	resolve_homes(l);
	_exit(0);
}

static bool host_answer_valid(char c)
{
	return c == LEARN_HOST_MISSING || c == LEARN_HOST_DIR || c == LEARN_HOST_FILE ||
	       c == LEARN_HOST_LINK || c == LEARN_HOST_SOCKET;
}

static unsigned host_flags(char c)
{
	int f = c - LEARN_FLAGS_BASE;

	return f >= 0 && f <= LEARN_HOLDS_ALL ? (unsigned)f : 0;
}

/* Read the child's answer until it ends or the deadline passes; true
 * when it answered for every path. */
static bool read_answers(struct learn_state *l, int in, double deadline)
{
	size_t want = 4 * l->n_entries, got = 0;
	char *buf = calloc(want ? want : 1, 1);

	while (buf && got < want) {
		struct pollfd pfd = { .fd = in, .events = POLLIN };
		double left = deadline - monotonic_now();
		ssize_t n;

		if (left <= 0 || poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
			break;
		n = read(in, buf + got, want - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	for (size_t i = 0; buf && i + 3 < got; i += 4) {
		struct learn_entry *e = &l->entries[i / 4];

		e->host = host_answer_valid(buf[i]) ? (enum learn_host)buf[i] : LEARN_HOST_UNKNOWN;
		e->host_flags = e->host == LEARN_HOST_DIR ? host_flags(buf[i + 1]) : 0;
		e->parent_host = host_answer_valid(buf[i + 2]) ? (enum learn_host)buf[i + 2] :
				 LEARN_HOST_UNKNOWN;
		e->parent_flags = e->parent_host == LEARN_HOST_DIR ? host_flags(buf[i + 3]) : 0;
	}
	free(buf);
	return got == want;
}

#define HOMES_TEXT_MAX (1 << 20)	/* bytes of resolved homes taken */

/* The homes the child resolved (resolve_homes), until it ends or the
 * deadline passes; true when it ended.  Each is added as a home. */
static bool read_homes(struct learn_state *l, int in, double deadline)
{
	char *buf = malloc(HOMES_TEXT_MAX + 1);
	size_t got = 0;
	bool ended = false;

	while (buf && got < HOMES_TEXT_MAX) {
		struct pollfd pfd = { .fd = in, .events = POLLIN };
		double left = deadline - monotonic_now();
		ssize_t n;

		if (left <= 0 || poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
			break;
		n = read(in, buf + got, HOMES_TEXT_MAX - got);
		if (n <= 0) {
			ended = n == 0;
			break;
		}
		got += (size_t)n;
	}
	/* only whole lines: a path cut at the deadline is not a home */
	for (size_t start = 0, i = 0; buf && i < got; i++) {
		if (buf[i] != '\n')
			continue;
		buf[i] = '\0';
		if (strlen(buf + start) == i - start)
			add_home(l, buf + start);
		start = i + 1;
	}
	free(buf);
	return ended;
}

/* A missing path may be on an automount, a FUSE server or a network
 * file system that never answers: the child, never the supervisor,
 * waits on it.  Past the deadline it is SIGKILLed and never waited for:
 * in an uninterruptible wait (a FUSE request) it dies only when the wait
 * ends, and hutch must not.  It holds no fd but its end of the pipe, and
 * once hutch exits init reaps it. */
static void look_up_host(struct sandbox *sb)
{
	struct learn_state *l = sb->learn;
	int p[2], pidfd = -1;
	pid_t pid;
	siginfo_t si;
	bool whole = false;

	if (l->n_entries == 0 || pipe2(p, O_CLOEXEC) < 0)
		return;
	pid = clone_with_pidfd(0, &pidfd, -1);
	if (pid == 0)
		look_up_child(l, p[1]);
	close(p[1]);
	if (pid > 0) {
		double deadline = monotonic_now() + LOOKUP_SECONDS;

		whole = read_answers(l, p[0], deadline) && read_homes(l, p[0], deadline);
	}
	close(p[0]);
	if (pid <= 0)
		return;
	if (!whole)
		pidfd_signal(pidfd, SIGKILL);
	/* done writing, it only exits: wait a moment for it, never more */
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

	if (poll(&pfd, 1, whole ? 1000 : 100) > 0) {
		memset(&si, 0, sizeof(si));
		waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED | WNOHANG);
	}
	close(pidfd);
}

/* ---- at the end: FILE ---- */


/* COMMAND's name for the header: its last component, cleaned. */
static void command_name(const struct plan *plan, char *out)
{
	const char *cmd = plan->argv && plan->argv[0] ? plan->argv[0] : "";
	const char *slash = strrchr(cmd, '/');

	cmd = slash ? slash + 1 : cmd;
	learn_comm_clean(cmd, strlen(cmd), out);
}

static void fill_facts(struct sandbox *sb, struct learn_facts *f, char *cmd)
{
	const struct plan *plan = sb->plan;
	struct learn_state *l = sb->learn;

	memset(f, 0, sizeof(*f));
	f->home = l->home;
	f->homes = (const char *const *)l->homes;
	f->n_homes = l->n_homes;
	f->includes = plan->profiles_used;
	f->n_includes = plan->n_profiles_used;
	f->file = l->file_real;
	command_name(plan, cmd);
	f->command = cmd;
	f->entries = l->entries;
	f->n_entries = l->n_entries;
	f->calls = l->calls;
	f->n_calls = l->n_calls;
	f->nets = l->nets;
	f->n_nets = l->n_nets;
	f->limit_hit = limits_ended_by(sb);
	f->pids = plan->pids > 0 ? (unsigned long long)plan->pids : 0;
	f->memory = plan->memory;
	f->timeout = sb->run.timed_out ? plan->timeout : 0;
	f->dropped = l->dropped;
	f->slow = l->slow >= SLOW_MAX;
}

static void write_file(struct sandbox *sb)
{
	struct learn_state *l = sb->learn;
	struct learn_facts f;
	char cmd[LEARN_COMM_MAX + 1], msg[4200], *text = NULL;
	const char *why = NULL;
	size_t len = 0, proposed;
	FILE *mem = open_memstream(&text, &len);

	if (!mem)
		return;
	fill_facts(sb, &f, cmd);
	proposed = learn_write_profile(&f, mem);
	if (sb->fallback)
		fprintf(mem, "\n# Under the Landlock fallback hutch sees no file or network "
			"refusal: run where user namespaces are allowed to learn those.\n");
	else if (!l->watched && sb->run.exec_seen)
		fprintf(mem, "\n# hutch saw no file access: without a seccomp filter "
			"(--seccomp-policy none), or inside a sandbox that holds the only "
			"listener, --learn sees no path.\n");
	else if (!l->acked && sb->run.exec_seen)
		fprintf(mem, "\n# hutch's observer saw no path: it reads them through the "
			"sandbox's /proc, which this profile may not mount (proc /proc).\n");
	/* FILE's name may be in a directory the sandbox could write: the
	 * text goes to a new file renamed over the name once the sandbox
	 * is gone, so whatever it wrote into FILE or planted at its name
	 * (a file, a link, a FIFO) is replaced, never followed. */
	if (fclose(mem) != 0)
		why = strerror(errno);
	else if (hostfile_replace(sb->plan->learn_path, text, len, &why) == 0)
		why = NULL;
	if (why)
		snprintf(msg, sizeof(msg), "learn: %s: %s", sb->plan->learn_path, why);
	else
		snprintf(msg, sizeof(msg), "learn: %zu line%s proposed in %s (use it with "
			 "--profile %s%s)", proposed, proposed == 1 ? "" : "s",
			 sb->plan->learn_path, strchr(sb->plan->learn_path, '/') ? "" : "./",
			 sb->plan->learn_path);
	free(text);
	log_warning(sb->plan->prog, msg);
}

static void free_state(struct learn_state *l)
{
	for (size_t i = 0; i < l->n_entries; i++)
		free(l->entries[i].path);
	for (size_t i = 0; i < l->n_calls; i++) {
		free(l->calls[i].name);
		free(l->calls[i].rule);
	}
	for (size_t i = 0; i < l->n_nets; i++)
		free(l->nets[i].host);
	for (size_t i = 0; i < l->n_homes; i++)
		free(l->homes[i]);
	free(l->homes);
	free(l->home);
	free(l->file_real);
	free(l->entries);
	free(l->calls);
	free(l->nets);
	free(l->resp);
	free(l);
}

void learn_finish(struct sandbox *sb)
{
	struct learn_state *l = sb->learn;

	if (!l)
		return;
	stop_polling(sb);
	close_fd(&l->req[1]);	/* the observer's EOF, if it still runs */
	if (l->rec[0] >= 0)
		take_records(sb, MAX_ENTRIES);
	for (int i = 0; i < 2; i++) {
		close_fd(&l->req[i]);
		close_fd(&l->rec[i]);
	}
	if (l->out >= 0) {
		look_up_host(sb);
		write_file(sb);
	}
	close_fd(&l->out);
	close_fd(&l->listener);
	close_fd(&l->timer);
	free_state(l);
	sb->learn = NULL;
}
