/* The connect broker: every connect() of COMMAND is made by the
 * supervisor, on COMMAND's socket, never let through.
 *
 * Defends against COMMAND reaching a unix socket of the host (tmux,
 * gpg-agent, ssh-agent, docker, a dev server in the project directory)
 * through whatever the sandbox's view holds: the bound current
 * directory, a bound directory, a directory it started in.  The kernel
 * has no rule for "connect to a pathname socket" (Landlock gains one
 * only after Linux 6.18), so the supervisor does the connect itself:
 *
 *   - it reads the address from COMMAND's memory once, takes COMMAND's
 *     socket with pidfd_getfd, and connects that copy: what it checked
 *     is what it connects, whatever another thread of COMMAND writes or
 *     dup2()s meanwhile (letting the call continue would re-read the
 *     address after the check);
 *   - a pathname is resolved inside the sandbox's root (openat2
 *     RESOLVE_IN_ROOT from /proc/PID/root), and the socket found must
 *     live on a tmpfs of the sandbox's own (not a filesystem mounted in
 *     the supervisor's namespace) or be a socket the plan bound by name;
 *     then the supervisor connects to that very inode
 *     (/proc/self/fd/N of the O_PATH fd);
 *   - an abstract address is resolved by the kernel in the socket's own
 *     network namespace: allowed when that is not the supervisor's (with
 *     --share-net it is, and the connect fails with EPERM, as Landlock's
 *     scoping of abstract sockets would answer it: the supervisor is not
 *     under the sandbox's Landlock domain);
 *   - with --allow-net, a TCP connect (AF_INET, AF_INET6) to a
 *     destination a rule allows (netconnect.c) is made on a new socket
 *     of the supervisor's (the host's) network namespace, installed over
 *     COMMAND's fd number (SECCOMP_IOCTL_NOTIF_ADDFD) once it is
 *     connected, never before: a stand-in COMMAND holds is connected,
 *     so it cannot connect again past the broker (sendto MSG_FASTOPEN
 *     needs an unconnected socket, and connect(AF_UNSPEC), which would
 *     disconnect it, is refused).  The bytes then go kernel to kernel.
 *     A loopback destination no rule allows is the sandbox's own
 *     loopback when a socket of the sandbox listens on its port (a
 *     server COMMAND runs); any other is refused with ECONNREFUSED and
 *     a "net" report line;
 *   - every other family is connected as given: the socket keeps the
 *     sandbox's network namespace.
 *
 * The supervisor never waits: a blocking socket is connected with
 * O_NONBLOCK set for the call; a TCP connect still in progress is
 * answered when the socket polls writable (at most MAX_PENDING at once).
 *
 * Unix datagram sockets reach a pathname with sendto() and no connect(),
 * and seccomp cannot see a sendto's address: socket() and socketpair()
 * of AF_UNIX SOCK_DGRAM (and SOCK_RAW, which the kernel makes a
 * datagram socket) are refused.  io_uring connects without a syscall:
 * io_uring_setup fails with ENOSYS, as on a kernel without it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>
#include <linux/sockios.h>
#include <seccomp.h>

#include "connect_broker.h"
#include "netconnect.h"
#include "lib/lib.h"
#include "sandbox.h"
#include "seccomp/seccomp.h"

#define MAX_PENDING 32		/* TCP connects in progress at once */
#define MAX_BOUND 64		/* sockets bound by name that are remembered */
#define MAX_PRIVATE 16		/* devices found to be the sandbox's own tmpfs */
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL	/* Linux 6.9 */
#endif

struct bound_socket {
	dev_t dev;
	ino_t ino;
};

/* A connect that the kernel goes on with: answered when SOCK is
 * writable. */
struct pending {
	__u64 id;
	int sock;		/* our copy of COMMAND's socket, or a stand-in; -1: free */
	/* A stand-in (netconnect.c): installed at FD in COMMAND once
	 * connected, blocking or not as COMMAND's was. */
	bool stand_in, cloexec, nonblock;
	int fd;
	struct net_dest dest;
	const struct net_rule *rule;
	double started;
};

struct connect_broker {
	int listener;
	struct bound_socket bound[MAX_BOUND];
	size_t n_bound;
	struct pending pending[MAX_PENDING];
	/* Found on no mount of the supervisor's: a tmpfs the sandbox
	 * mounted.  Its device number stays its own while the sandbox
	 * holds it, so the finding holds for the run. */
	dev_t private_devs[MAX_PRIVATE];
	size_t n_private;
	char reason[PATH_MAX + 128];	/* the last refusal's, for reports */
};

/* The process that made the call, as the supervisor reaches it. */
struct target {
	const struct seccomp_notif *req;
	int listener;
	int pidfd;
	char proc[32];		/* "/proc/TID" */
};

/* ---- prepare ---- */

/* Remember OP's source if it is a socket. */
static void remember_bound(struct connect_broker *b, const struct fs_op *op)
{
	struct stat st;
	int r = -1;

	if (op->kind == FS_BIND_FD && op->fd >= 0)
		r = fstat(op->fd, &st);
	else if ((op->kind == FS_BIND || op->kind == FS_MIRROR) && op->src)
		r = stat(op->src, &st);
	if (r == 0 && S_ISSOCK(st.st_mode) && b->n_bound < MAX_BOUND)
		b->bound[b->n_bound++] = (struct bound_socket){ st.st_dev, st.st_ino };
}

int connect_broker_prepare(struct sandbox *sb)
{
	const struct plan *plan = sb->plan;
	struct connect_broker *b;

	if (plan->mode != MODE_HUTCH)
		return 0;
	b = calloc(1, sizeof(*b));
	if (!b) {
		snprintf(sb->err, sizeof(sb->err), "report: connect broker: %s", strerror(ENOMEM));
		return -1;
	}
	b->listener = -1;
	for (size_t i = 0; i < MAX_PENDING; i++)
		b->pending[i].sock = -1;
	/* A socket named as a bind's source is one the caller chose to
	 * hand over (a Wayland or X11 socket); a bound directory hands over
	 * none of the sockets inside it. */
	for (size_t i = 0; i < plan->n_ops; i++)
		remember_bound(b, &plan->ops[i]);
	sb->broker = b;
	return 0;
}

void connect_broker_finish(struct sandbox *sb)
{
	struct connect_broker *b = sb->broker;

	if (!b)
		return;
	for (size_t i = 0; i < MAX_PENDING; i++)
		if (b->pending[i].sock >= 0) {
			loop_remove_source(sb, b->pending[i].sock);
			close(b->pending[i].sock);
		}
	free(b);
	sb->broker = NULL;
}

/* ---- answers ---- */

/* ERRNUM, or success (0); CONTINUE only where every argument is a
 * number in a register, which the process cannot change after the
 * check (socket, socketpair). */
static void send_answer(int listener, __u64 id, int errnum, bool cont)
{
	struct seccomp_notif_resp resp = {
		.id = id,
		.error = -errnum,
		.flags = cont ? SECCOMP_USER_NOTIF_FLAG_CONTINUE : 0,
	};

	(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

static bool still_waiting(int listener, __u64 id)
{
	return ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* ---- the target process ---- */

/* The thread's Tgid, for kernels whose pidfd_open takes no thread. */
static pid_t thread_group(const char *proc)
{
	char status[4096], *line;
	int dir = open(proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ssize_t n = dir < 0 ? -1 : read_file_at(dir, "status", status, sizeof(status));
	long tgid = 0;

	if (dir >= 0)
		close(dir);
	if (n > 0 && (line = strstr(status, "\nTgid:")))
		tgid = strtol(line + 6, NULL, 10);
	return (pid_t)tgid;
}

/* A pidfd of the calling thread (its fd table), else of its process;
 * 0, or an errno. */
static int open_target(struct target *t)
{
	pid_t tid = (pid_t)t->req->pid;
	int fd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);

	snprintf(t->proc, sizeof(t->proc), "/proc/%d", (int)tid);
	if (fd < 0 && errno == EINVAL) {
		pid_t tgid = thread_group(t->proc);

		fd = tgid > 0 ? (int)syscall(SYS_pidfd_open, tgid, 0) : -1;
	}
	t->pidfd = fd;
	return fd >= 0 ? 0 : errno;
}

/* LEN bytes at ADDR in the target's memory; 0, or an errno. */
static int read_target(const struct target *t, __u64 addr, void *buf, size_t len)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };

	if (len == 0)
		return 0;
	if (process_vm_readv((pid_t)t->req->pid, &local, 1, &remote, 1, 0) != (ssize_t)len)
		return EFAULT;
	return 0;
}

/* ---- pathname sockets ---- */

/* Is DEV the device of a filesystem mounted in the supervisor's mount
 * namespace (which the sandbox cannot change)? */
static bool host_device(dev_t dev)
{
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	char *text = fd < 0 ? NULL : read_text_fd(fd);
	bool found = text == NULL;	/* unknown: taken for the host's */
	unsigned maj, min;

	if (fd >= 0)
		close(fd);
	for (char *line = text; line && *line && !found; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (sscanf(line, "%*d %*d %u:%u", &maj, &min) == 2 &&
		    maj == major(dev) && min == minor(dev))
			found = true;
	}
	free(text);
	return found;
}

static bool bound_by_name(const struct connect_broker *b, const struct stat *st)
{
	for (size_t i = 0; i < b->n_bound; i++)
		if (b->bound[i].dev == st->st_dev && b->bound[i].ino == st->st_ino)
			return true;
	return false;
}

/* Is DEV a tmpfs of the sandbox's own, found so before or now? */
static bool private_device(struct connect_broker *b, dev_t dev)
{
	for (size_t i = 0; i < b->n_private; i++)
		if (b->private_devs[i] == dev)
			return true;
	if (host_device(dev))
		return false;
	if (b->n_private < MAX_PRIVATE)
		b->private_devs[b->n_private++] = dev;
	return true;
}

/* May the sandbox connect to the socket FD (O_PATH)?  A tmpfs of its
 * own holds only what it made; every other filesystem (the host's, an
 * overlay of the host's) may hold a live socket of a server outside. */
static bool socket_allowed(struct connect_broker *b, int fd, const struct stat *st)
{
	struct statfs sfs;

	if (bound_by_name(b, st))
		return true;
	return fstatfs(fd, &sfs) == 0 && sfs.f_type == TMPFS_MAGIC && private_device(b, st->st_dev);
}

/* PATH as the target names it, absolute in its root: a relative one
 * joined to its working directory as its root sees it. */
static int absolute_path(const struct target *t, const char *path, char *out, size_t len)
{
	char link[64], cwd[PATH_MAX];
	ssize_t n;

	if (path[0] == '/')
		return snprintf(out, len, "%s", path) < (int)len ? 0 : ENAMETOOLONG;
	snprintf(link, sizeof(link), "%s/cwd", t->proc);
	n = readlink(link, cwd, sizeof(cwd) - 1);
	if (n <= 0)
		return ENOENT;
	cwd[n] = '\0';
	if (cwd[0] != '/')
		return ENOENT;	/* not reachable from its root */
	return snprintf(out, len, "%s/%s", cwd, path) < (int)len ? 0 : ENAMETOOLONG;
}

/* Open the socket PATH names inside the target's root: *FD (O_PATH)
 * and its stat; 0, or the errno connect() would give. */
static int open_in_root(const struct target *t, const char *path, int *fd, struct stat *st)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	char full[PATH_MAX], root_link[64];
	int root, errnum = absolute_path(t, path, full, sizeof(full));

	if (errnum)
		return errnum;
	snprintf(root_link, sizeof(root_link), "%s/root", t->proc);
	root = open(root_link, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return ECONNREFUSED;
	*fd = (int)syscall(SYS_openat2, root, full, &how, sizeof(how));
	errnum = *fd < 0 ? errno : 0;
	close(root);
	if (!errnum && fstat(*fd, st) < 0)
		errnum = errno;
	if (!errnum && !S_ISSOCK(st->st_mode))
		errnum = ECONNREFUSED;	/* what connect() says of a non-socket */
	if (errnum && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	return errnum;
}

/* ---- stand-ins: connects made from the host's namespace ---- */

/* Is FD close-on-exec in the target?  Its fdinfo, which the kernel
 * writes. */
static bool target_cloexec(const struct target *t, int fd)
{
	char name[32], text[512], *flags;
	int dir = open(t->proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ssize_t n;

	snprintf(name, sizeof(name), "fdinfo/%d", fd);
	n = dir < 0 ? -1 : read_file_at(dir, name, text, sizeof(text));
	if (dir >= 0)
		close(dir);
	flags = n > 0 ? strstr(text, "flags:") : NULL;
	return flags && (strtoul(flags + 6, NULL, 8) & O_CLOEXEC);
}

/* P's connected stand-in put at its fd number in the caller, whatever
 * that number holds now; 0, or an errno. */
static int install_stand_in(int listener, const struct pending *p)
{
	struct seccomp_notif_addfd add = {
		.id = p->id,
		.flags = SECCOMP_ADDFD_FLAG_SETFD,
		.srcfd = (__u32)p->sock,
		.newfd = (__u32)p->fd,
		.newfd_flags = p->cloexec ? O_CLOEXEC : 0,
	};
	int flags = fcntl(p->sock, F_GETFL);

	if (!p->nonblock && flags >= 0)
		(void)fcntl(p->sock, F_SETFL, flags & ~O_NONBLOCK);
	return ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add) < 0 ? errno : 0;
}

/* A stand-in's connect is done with ERROR: installed and answered 0,
 * or the error answered; reported either way.  Takes its socket. */
static void finish_stand_in(struct sandbox *sb, const struct pending *p, int error)
{
	struct connect_broker *b = sb->broker;
	char reason[160], where[64];

	if (!error)
		error = install_stand_in(b->listener, p);
	send_answer(b->listener, p->id, error, false);
	close(p->sock);
	if (!error) {
		netconnect_report(sb, &p->dest, p->rule, "allowed", NULL, false,
				  monotonic_now() - p->started);
		return;
	}
	netrule_addr_format(&p->dest.addr, where, sizeof(where));
	snprintf(reason, sizeof(reason), "connect to %s port %d: %s", where, p->dest.port,
		 strerror(error));
	netconnect_report(sb, &p->dest, p->rule, "failed", reason, false,
			  monotonic_now() - p->started);
}

/* ---- connecting ---- */

static int free_slot(struct sandbox *sb)
{
	struct connect_broker *b = sb->broker;

	for (int i = 0; i < MAX_PENDING; i++)
		if (b->pending[i].sock < 0)
			return i;
	/* Full: drop those whose caller is gone (killed while waiting). */
	for (int i = 0; i < MAX_PENDING; i++)
		if (!still_waiting(b->listener, b->pending[i].id)) {
			loop_remove_source(sb, b->pending[i].sock);
			close(b->pending[i].sock);
			b->pending[i].sock = -1;
		}
	for (int i = 0; i < MAX_PENDING; i++)
		if (b->pending[i].sock < 0)
			return i;
	return -1;
}

/* A connect in progress is done (writable, or failed): answer it with
 * its outcome. */
static void on_pending(struct sandbox *sb, short revents)
{
	struct connect_broker *b = sb->broker;

	(void)revents;
	for (int i = 0; b && i < MAX_PENDING; i++) {
		struct pollfd pfd = { .fd = b->pending[i].sock, .events = POLLOUT };
		int error = 0;
		socklen_t len = sizeof(error);

		if (pfd.fd < 0 || poll(&pfd, 1, 0) != 1)
			continue;
		if (getsockopt(pfd.fd, SOL_SOCKET, SO_ERROR, &error, &len) < 0)
			error = errno;
		loop_remove_source(sb, pfd.fd);
		if (b->pending[i].stand_in) {
			finish_stand_in(sb, &b->pending[i], error);
		} else {
			send_answer(b->listener, b->pending[i].id, error, false);
			close(pfd.fd);
		}
		b->pending[i].sock = -1;
	}
}

/* Keep P until its connect is done; false when that cannot be. */
static bool keep_pending(struct sandbox *sb, const struct pending *p)
{
	struct connect_broker *b = sb->broker;
	int slot = free_slot(sb);

	if (slot < 0 || loop_add_source(sb, p->sock, POLLOUT, on_pending) < 0)
		return false;
	b->pending[slot] = *p;
	return true;
}

/* Connect SOCK to ADDR without waiting, and answer the call: the
 * kernel's own answer, or, for a blocking socket whose connect goes on,
 * its outcome later.  Takes SOCK.  The answer given now, or 0. */
static int connect_now(struct sandbox *sb, const struct seccomp_notif *req, int sock,
		       const struct sockaddr *addr, socklen_t len)
{
	struct connect_broker *b = sb->broker;
	int flags = fcntl(sock, F_GETFL);
	bool blocking = flags >= 0 && !(flags & O_NONBLOCK);
	int rc, errnum;

	if (blocking)
		(void)fcntl(sock, F_SETFL, flags | O_NONBLOCK);
	rc = connect(sock, addr, len);
	errnum = rc < 0 ? errno : 0;
	if (blocking)
		(void)fcntl(sock, F_SETFL, flags);
	if (blocking && (errnum == EINPROGRESS || errnum == EALREADY)) {
		if (keep_pending(sb, &(struct pending){ .id = req->id, .sock = sock }))
			return 0;
		errnum = EAGAIN;	/* more than MAX_PENDING at once */
	}
	send_answer(b->listener, req->id, errnum, false);
	close(sock);
	return errnum;
}

/* Is SOCK's network namespace the supervisor's own?  Unknown (no
 * right to ask) counts as yes. */
static bool host_netns(int sock)
{
	struct stat mine, its;
	int ns = ioctl(sock, SIOCGSKNS);
	bool same = true;

	if (ns >= 0 && stat("/proc/self/ns/net", &mine) == 0 && fstat(ns, &its) == 0)
		same = mine.st_dev == its.st_dev && mine.st_ino == its.st_ino;
	if (ns >= 0)
		close(ns);
	return same;
}

static bool refuse(struct connect_broker *b, int errnum, int *out, const char **source)
{
	*out = errnum;
	*source = b->reason;
	return false;
}

/* A pathname address: connect to the checked inode, or refuse. */
static bool connect_path(struct sandbox *sb, const struct target *t, int sock,
			 const struct sockaddr_un *sun, size_t path_len, int *errnum,
			 const char **source)
{
	struct connect_broker *b = sb->broker;
	struct sockaddr_un via = { .sun_family = AF_UNIX };
	char path[sizeof(sun->sun_path) + 1];
	struct stat st;
	int fd = -1, e;

	memcpy(path, sun->sun_path, path_len);
	path[path_len] = '\0';
	e = open_in_root(t, path, &fd, &st);
	if (!still_waiting(t->listener, t->req->id)) {
		e = -1;		/* gone, or its pid another's: nothing to answer */
	} else if (!e && !socket_allowed(b, fd, &st)) {
		snprintf(b->reason, sizeof(b->reason), "connect broker: %s is a socket outside "
			 "the sandbox (not on a tmpfs of its own, not bound by name)", path);
		close(fd);
		close(sock);
		return refuse(b, ECONNREFUSED, errnum, source);
	}
	if (e) {
		if (e > 0)
			send_answer(b->listener, t->req->id, e, false);
		if (fd >= 0)
			close(fd);
		close(sock);
		return true;
	}
	snprintf(via.sun_path, sizeof(via.sun_path), "/proc/self/fd/%d", fd);
	connect_now(sb, t->req, sock, (struct sockaddr *)&via, sizeof(via));
	close(fd);
	return true;
}

/* An allowed TCP connect: a stand-in of the host's namespace connects
 * in place of SOCK (COMMAND's, taken), and goes to COMMAND once
 * connected. */
static void start_stand_in(struct sandbox *sb, const struct target *t, int sock,
			   const struct net_dest *dest, const struct net_rule *rule,
			   const struct sockaddr_storage *addr, socklen_t len)
{
	int flags = fcntl(sock, F_GETFL), e;
	struct pending p = {
		.id = t->req->id, .stand_in = true, .fd = (int)t->req->data.args[0],
		.nonblock = flags >= 0 && (flags & O_NONBLOCK), .dest = *dest, .rule = rule,
		.started = monotonic_now(),
	};

	p.cloexec = target_cloexec(t, p.fd);
	p.sock = netconnect_socket(sock);
	e = p.sock < 0 ? errno : 0;
	close(sock);
	if (!e && connect(p.sock, (const struct sockaddr *)addr, len) < 0)
		e = errno;
	if (e == EINPROGRESS) {
		if (keep_pending(sb, &p))
			return;
		e = EAGAIN;	/* more than MAX_PENDING at once */
	}
	if (p.sock < 0) {
		send_answer(sb->broker->listener, p.id, e, false);
		snprintf(sb->broker->reason, sizeof(sb->broker->reason), "socket: %s",
			 strerror(e));
		netconnect_report(sb, dest, rule, "failed", sb->broker->reason, false, 0);
		return;
	}
	finish_stand_in(sb, &p, e);
}

static bool connected(int sock)
{
	struct sockaddr_storage peer;
	socklen_t len = sizeof(peer);

	return getpeername(sock, (struct sockaddr *)&peer, &len) == 0;
}

/* A refusal of a TCP connect to DEST (or NULL): ERRNUM, and a "net"
 * line (counted for the summary at exit). */
static void refuse_inet(struct sandbox *sb, const struct target *t, int sock,
			const struct net_dest *dest, int errnum)
{
	struct connect_broker *b = sb->broker;

	send_answer(b->listener, t->req->id, errnum, false);
	close(sock);
	netconnect_report(sb, dest, NULL, "refused", b->reason, true, 0);
}

/* A connect on an AF_INET or AF_INET6 stream socket, with --allow-net. */
static bool connect_inet(struct sandbox *sb, const struct target *t, int sock,
			 const struct sockaddr_storage *addr, socklen_t len)
{
	struct connect_broker *b = sb->broker;
	bool stand_in = host_netns(sock);	/* one installed here before */
	const struct net_rule *rule;
	const char *class;
	struct net_dest dest;

	if (!netconnect_dest(addr, len, &dest)) {
		if (!stand_in) {
			connect_now(sb, t->req, sock, (const struct sockaddr *)addr, len);
			return true;
		}
		/* AF_UNSPEC would disconnect it: a socket of the host's,
		 * unconnected, connects anywhere with sendto(MSG_FASTOPEN). */
		snprintf(b->reason, sizeof(b->reason), "connect broker: a connection made "
			 "outside is never disconnected (connect AF_UNSPEC)");
		refuse_inet(sb, t, sock, NULL, EACCES);
		return true;
	}
	if (stand_in && connected(sock)) {
		send_answer(b->listener, t->req->id, EISCONN, false);
		close(sock);
		return true;
	}
	rule = netconnect_rule(sb, &dest, b->reason, sizeof(b->reason));
	if (rule) {
		start_stand_in(sb, t, sock, &dest, rule, addr, len);
		return true;
	}
	class = netrule_addr_special(&dest.addr);
	if (!stand_in && class && strcmp(class, "loopback") == 0 &&
	    netconnect_sandbox_listens(sb, t->proc, dest.addr.family, dest.port)) {
		/* The sandbox's own loopback: a server of COMMAND's. */
		connect_now(sb, t->req, sock, (const struct sockaddr *)addr, len);
		return true;
	}
	refuse_inet(sb, t, sock, &dest, ECONNREFUSED);
	return true;
}

/* An AF_INET or AF_INET6 stream socket? */
static bool inet_stream(int sock)
{
	int domain = 0, type = 0;
	socklen_t len = sizeof(int);

	if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0)
		return false;
	len = sizeof(int);
	return (domain == AF_INET || domain == AF_INET6) &&
	       getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_STREAM;
}

/* COMMAND's connect(fd, addr, len), made here. */
static bool broker_connect(struct sandbox *sb, struct target *t, int *errnum,
			   const char **source)
{
	struct connect_broker *b = sb->broker;
	const struct seccomp_notif *req = t->req;
	struct sockaddr_storage addr = { 0 };
	int len = (int)req->data.args[2];	/* socklen_t: the low 32 bits */
	const struct sockaddr_un *sun = (const struct sockaddr_un *)&addr;
	const size_t path_at = offsetof(struct sockaddr_un, sun_path);
	int e = 0, sock;
	struct stat st;

	if (len < 0 || (size_t)len > sizeof(addr))
		e = EINVAL;	/* as the kernel says */
	else
		e = read_target(t, req->data.args[1], &addr, (size_t)len);
	if (!still_waiting(t->listener, req->id))
		return true;
	sock = e ? -1 : (int)syscall(SYS_pidfd_getfd, t->pidfd, (int)req->data.args[0], 0);
	if (!e && sock < 0)
		e = errno == ESRCH ? EBADF : errno;
	if (!e && (fstat(sock, &st) < 0 || !S_ISSOCK(st.st_mode)))
		e = ENOTSOCK;
	if (e) {
		send_answer(b->listener, req->id, e, false);
		if (sock >= 0)
			close(sock);
		return true;
	}
	if (sb->net && inet_stream(sock))
		return connect_inet(sb, t, sock, &addr, (socklen_t)len);
	/* The kernel's own bound (unix_validate_addr): the path below is
	 * copied into a buffer of sun_path's size, and the sandbox chose LEN. */
	if (addr.ss_family == AF_UNIX && (size_t)len > sizeof(struct sockaddr_un)) {
		send_answer(b->listener, req->id, EINVAL, false);
		close(sock);
		return true;
	}
	if (addr.ss_family == AF_UNIX && (size_t)len > path_at && sun->sun_path[0] != '\0')
		return connect_path(sb, t, sock, sun, strnlen(sun->sun_path, (size_t)len - path_at),
				    errnum, source);
	if (addr.ss_family == AF_UNIX && (size_t)len > path_at && host_netns(sock)) {
		snprintf(b->reason, sizeof(b->reason), "connect broker: an abstract unix "
			 "socket of the host's network namespace");
		close(sock);
		return refuse(b, EPERM, errnum, source);	/* as Landlock's scoping says */
	}
	connect_now(sb, req, sock, (struct sockaddr *)&addr, (socklen_t)len);
	return true;
}

static bool is_unix_dgram(const struct seccomp_notif *req)
{
	int type = (int)(req->data.args[1] & 0xf);

	if ((int)req->data.args[0] != AF_UNIX)
		return false;
	for (int i = 0; i < SECCOMP_N_UNIX_DGRAM_TYPES; i++)
		if (type == seccomp_unix_dgram_types[i])
			return true;
	return false;
}

bool connect_broker_answer(struct sandbox *sb, int listener,
			   const struct seccomp_notif *req, int *errnum,
			   const char **source)
{
	struct connect_broker *b = sb->broker;
	struct target t = { .req = req, .listener = listener, .pidfd = -1 };
	bool answered = true;
	int e;

	*errnum = 0;
	if (!b || req->data.arch != seccomp_arch_native())
		return false;
	b->listener = listener;
	if ((req->data.nr == SYS_socket || req->data.nr == SYS_socketpair) &&
	    (int)req->data.args[0] == AF_VSOCK) {
		snprintf(b->reason, sizeof(b->reason), "connect broker: vsock is in no "
			 "network namespace (the host's and the hypervisor's ports)");
		return refuse(b, EAFNOSUPPORT, errnum, source);
	}
	if (req->data.nr == SYS_socket || req->data.nr == SYS_socketpair) {
		if (!is_unix_dgram(req)) {
			send_answer(listener, req->id, 0, true);
			return true;
		}
		snprintf(b->reason, sizeof(b->reason), "connect broker: unix datagram "
			 "sockets reach a socket outside with sendto(), past connect()");
		return refuse(b, EACCES, errnum, source);
	}
	if (req->data.nr == SYS_io_uring_setup) {
		snprintf(b->reason, sizeof(b->reason), "connect broker: io_uring "
			 "connects without connect()");
		return refuse(b, ENOSYS, errnum, source);
	}
	if (req->data.nr != SYS_connect)
		return false;
	e = open_target(&t);
	/* The pid could name another process by now: only a pending
	 * notification proves it is still the caller. */
	if (!still_waiting(listener, req->id))
		;	/* gone: nothing to answer */
	else if (e)
		send_answer(listener, req->id, e, false);
	else
		answered = broker_connect(sb, &t, errnum, source);
	if (t.pidfd >= 0)
		close(t.pidfd);
	return answered;
}
