/* Unit tests of the filters behind violation reports: the policy's answer
 * for a notified call (policy_refusal), the filters policy_apply_reporting
 * loads (run here through a small classic-BPF interpreter and compared
 * with the plain filter, for every syscall number), and the hand-over of
 * the listener in forked children: plain, under a policy that refuses the
 * hand-over calls, and nested under a filter that has a listener. */
#define _GNU_SOURCE
#include "lib/json.h"
#include "seccomp/policy.h"
#include "seccomp/seccomp_policy.h"
#include "lib/util.h"

#include <check.h>

#include "run_suite.h"
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define ERRLEN 512
#define X32_BIT 0x40000000u

static struct policy_ready *prepare(const char *policy,
				    struct syscall_rule *rules, size_t n)
{
	struct plan plan = { .seccomp_policy = (char *)policy,
			     .syscall_rules = rules, .n_syscall_rules = n,
			     .report_fd = -1 };
	struct policy_ready *ready = NULL;
	char err[ERRLEN] = "";

	ck_assert_msg(policy_prepare(&plan, &ready, err, sizeof err) == 0,
		      "%s", err);
	return ready;
}

/* ---- what the supervisor answers ---- */

static int refusal(const struct policy_ready *ready, const char *name,
		   uint64_t arg0, uint64_t arg1, const char **source)
{
	uint64_t args[6] = { arg0, arg1, 0, 0, 0, 0 };

	return policy_refusal(ready, seccomp_syscall_resolve_name(name), args,
			      source);
}

START_TEST(test_refusal_errno_and_line)
{
	struct policy_ready *ready = prepare("default", NULL, 0);
	uint64_t none[6] = { 0 };
	const char *source;

	ck_assert_int_eq(refusal(ready, "bpf", 0, 0, &source), EPERM);
	ck_assert(strncmp(source, "default:", 8) == 0);
	ck_assert_int_eq(refusal(ready, "keyctl", 0, 0, &source), ENOSYS);
	ck_assert_int_eq(refusal(ready, "read", 0, 0, &source), 0);
	ck_assert_int_eq(refusal(ready, "ioctl", 0, TIOCSTI, &source), EPERM);
	ck_assert_str_ne(source, policy_rule_source(ready, "ioctl"));
	ck_assert_int_eq(refusal(ready, "ioctl", 0, TIOCSTI | (1ULL << 32),
				 &source), EPERM);
	ck_assert_int_eq(refusal(ready, "ioctl", 0, TCGETS, &source), 0);
	ck_assert_int_eq(refusal(ready, "personality", 0xffffffff, 0, &source), 0);
	ck_assert_int_eq(refusal(ready, "personality", 0x1234, 0, &source), EPERM);
	ck_assert_int_eq(policy_refusal(ready, SECCOMP_NEWER_LAST, none,
					&source), ENOSYS);
	policy_ready_free(ready);
}
END_TEST

START_TEST(test_refusal_command_line_rule)
{
	struct syscall_rule rule = { .name = "chmod", .errnum = EACCES };
	struct policy_ready *ready = prepare("default", &rule, 1);
	const char *source;

	ck_assert_int_eq(refusal(ready, "chmod", 0, 0, &source), EACCES);
	ck_assert_str_eq(source, "command line");
	policy_ready_free(ready);
}
END_TEST

/* ---- the filters, run by a classic-BPF interpreter ---- */

static uint32_t load_word(const struct seccomp_data *d, uint32_t off)
{
	uint32_t w;

	ck_assert_msg(off % 4 == 0 && off + 4 <= sizeof *d, "load %u", off);
	memcpy(&w, (const char *)d + off, 4);
	return w;
}

static bool jump_taken(uint16_t op, uint32_t a, uint32_t k)
{
	switch (op) {
	case BPF_JEQ: return a == k;
	case BPF_JGT: return a > k;
	case BPF_JGE: return a >= k;
	case BPF_JSET: return (a & k) != 0;
	}
	ck_abort_msg("jump op %#x", op);
	return false;
}

/* The return value of PROG (N instructions) for D. */
static uint32_t run_bpf(const struct sock_filter *prog, size_t n,
			const struct seccomp_data *d)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };

	for (size_t pc = 0; pc < n; pc++) {
		const struct sock_filter *i = &prog[pc];

		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS: a = load_word(d, i->k); break;
		case BPF_LD | BPF_IMM: a = i->k; break;
		case BPF_LD | BPF_MEM: a = mem[i->k]; break;
		case BPF_LDX | BPF_IMM: x = i->k; break;
		case BPF_LDX | BPF_MEM: x = mem[i->k]; break;
		case BPF_ST: mem[i->k] = a; break;
		case BPF_STX: mem[i->k] = x; break;
		case BPF_ALU | BPF_AND | BPF_K: a &= i->k; break;
		case BPF_ALU | BPF_OR | BPF_K: a |= i->k; break;
		case BPF_MISC | BPF_TAX: x = a; break;
		case BPF_MISC | BPF_TXA: a = x; break;
		case BPF_JMP | BPF_JA: pc += i->k; break;
		case BPF_RET | BPF_K: return i->k;
		case BPF_RET | BPF_A: return a;
		default:
			ck_assert_msg(BPF_CLASS(i->code) == BPF_JMP &&
				      BPF_SRC(i->code) == BPF_K,
				      "opcode %#x at %zu", i->code, pc);
			pc += jump_taken(BPF_OP(i->code), a, i->k) ? i->jt : i->jf;
		}
	}
	ck_abort_msg("ran off the end");
	return 0;
}

/* The kernel's choice between two filters' results: the lower action
 * (as a signed number) wins, the newer filter's on a tie. */
static uint32_t stronger(uint32_t newer, uint32_t older)
{
	int32_t n = (int32_t)(newer & SECCOMP_RET_ACTION_FULL);
	int32_t o = (int32_t)(older & SECCOMP_RET_ACTION_FULL);

	return o < n ? older : newer;
}

/* The connect broker's own answer to a call the policy allows, as its
 * documentation says (connect_broker.c): unix datagram sockets refused
 * with EACCES, io_uring_setup with ENOSYS; 0 for a call it makes or lets
 * continue (connect, every other socket). */
static int broker_refusal(const struct seccomp_data *d)
{
	uint64_t type = d->args[1] & 0xf;

	if (d->nr == __NR_io_uring_setup)
		return ENOSYS;
	if ((d->nr == __NR_socket || d->nr == __NR_socketpair) &&
	    (d->args[0] & 0xffffffff) == AF_UNIX && (type == SOCK_DGRAM || type == SOCK_RAW))
		return EACCES;
	return 0;
}

/* What the reporting filters and the supervisor do with D together. */
static uint32_t reporting_result(const struct policy_ready *ready,
				 const struct seccomp_data *d)
{
	struct policy_programs p;
	uint32_t ret;
	const char *source;
	int errnum;
	bool brokered = d->nr == __NR_connect || d->nr == __NR_io_uring_setup ||
			d->nr == __NR_socket || d->nr == __NR_socketpair;

	policy_ready_programs(ready, &p);
	ret = run_bpf(p.notify, p.n_notify, d);
	if (p.late)
		ret = stronger(run_bpf(p.late, p.n_late, d), ret);
	if ((ret & SECCOMP_RET_ACTION_FULL) != SECCOMP_RET_USER_NOTIF)
		return ret;
	errnum = policy_refusal(ready, d->nr, (const uint64_t *)d->args,
				&source);
	if (errnum == 0 && brokered)
		errnum = broker_refusal(d);
	if (errnum == 0 && brokered)
		return SECCOMP_RET_ALLOW;
	ck_assert_msg(errnum > 0, "notified, but allowed: nr %d", d->nr);
	return SECCOMP_RET_ERRNO | (uint32_t)errnum;
}

/* The plain filter's result, with the broker's refusals of what it
 * allows (only the reporting filters have a broker). */
static uint32_t plain_with_broker(const struct sock_filter *plain, size_t n,
				  const struct seccomp_data *d)
{
	uint32_t ret = run_bpf(plain, n, d);

	if (d->arch == seccomp_arch_native() && ret == SECCOMP_RET_ALLOW && broker_refusal(d))
		return SECCOMP_RET_ERRNO | (uint32_t)broker_refusal(d);
	return ret;
}

static const uint64_t arg_values[] = {
	0, 0x40, TIOCSTI, TIOCSTI | (1ULL << 32), TCGETS, 0xffffffff, 8,
	0x40008, 0xdeadbeef00000000ULL, SOCK_DGRAM, SOCK_RAW | SOCK_CLOEXEC,
	SOCK_DGRAM | (1ULL << 32), SOCK_SEQPACKET,
};

/* For every syscall number, native and x32, and another ABI: the same
 * result as the plain filter. */
static void assert_same_results(const struct policy_ready *ready)
{
	size_t n_plain;
	const struct sock_filter *plain = policy_ready_bpf(ready, &n_plain);
	struct seccomp_data d = { .arch = seccomp_arch_native() };
	struct policy_programs p;

	policy_ready_programs(ready, &p);
	ck_assert(plain && p.notify);
	for (uint32_t nr = 0; nr <= SECCOMP_NEWER_LAST + 1; nr++) {
		for (size_t v = 0; v < sizeof arg_values / sizeof *arg_values; v++) {
			for (int a = 0; a < 6; a++)
				d.args[a] = a == (int)(nr % 3) ? arg_values[v] : 0;
			d.args[1] = arg_values[v];
			/* socket(AF_UNIX, ...) and not, for every type */
			if (nr == __NR_socket || nr == __NR_socketpair)
				d.args[0] = (v & 1) ? AF_UNIX : AF_INET;
			for (int abi = 0; abi < 3; abi++) {
				d.arch = abi == 2 ? AUDIT_ARCH_I386 : seccomp_arch_native();
				d.nr = (int)(abi == 1 ? (nr | X32_BIT) : nr);
				ck_assert_msg(plain_with_broker(plain, n_plain, &d) ==
					      reporting_result(ready, &d),
					      "nr %#x arch %#x arg %#llx", d.nr, d.arch,
					      (unsigned long long)arg_values[v]);
			}
		}
	}
}

static const char *const policies[] = { "default", "strict", "hand-over" };

START_TEST(test_reporting_filters_match_plain)
{
	static const char text[] =
		"default deny EACCES\n"
		"allow read\nallow write\nallow exit_group\n"
		"deny sendmsg EBADF\nallow sendmsg if arg2 == 0x40\n"
		"deny seccomp ENOSYS\n"
		"deny ioctl EPERM if arg1 & 0xffffffff == TIOCSTI\n"
		"allow @newer\n";
	char path[] = "/tmp/hutch-test-policy.XXXXXX";
	struct policy_ready *ready;
	int fd = -1;

	if (_i == 2) {
		fd = mkstemp(path);
		ck_assert(fd >= 0 && write(fd, text, strlen(text)) ==
				     (ssize_t)strlen(text));
		close(fd);
	}
	ready = prepare(_i == 2 ? path : policies[_i], NULL, 0);
	if (fd >= 0)
		unlink(path);
	assert_same_results(ready);
	policy_ready_free(ready);
}
END_TEST

/* POLICY's text in a file, prepared in hutch mode: 0 or -1, ERR set. */
static int prepare_text(const char *text, struct policy_ready **ready, char *err,
			size_t errlen)
{
	char path[] = "/tmp/hutch-test-policy.XXXXXX";
	struct plan plan = { .seccomp_policy = path, .report_fd = -1 };
	int fd = mkstemp(path);
	int r;

	ck_assert(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	*ready = NULL;
	r = policy_prepare(&plan, ready, err, errlen);
	unlink(path);
	return r;
}

/* A policy whose late filter libseccomp cannot build (a default deny, and
 * exceptions for sendmsg on two arguments) runs with the plain filter,
 * unreported; one that only the notifying copy could express (exceptions
 * with different errnos become one action there) is refused as the plain
 * filter refuses it. */
START_TEST(test_reporting_only_when_expressible)
{
	struct policy_ready *ready;
	struct policy_programs p;
	char err[ERRLEN] = "";
	size_t n;

	ck_assert_msg(prepare_text("default deny EPERM\nallow sendmsg if arg2 == 0\n"
				   "allow sendmsg if arg0 == 1\nallow seccomp\n",
				   &ready, err, sizeof err) == 0, "%s", err);
	policy_ready_programs(ready, &p);
	ck_assert(!p.notify && !p.late);
	ck_assert(policy_ready_bpf(ready, &n) && n > 0);
	policy_ready_free(ready);
	ck_assert_int_eq(prepare_text("default allow\ndeny ioctl EPERM if arg1 == 1\n"
				      "deny ioctl EACCES if arg1 == 2\n", &ready, err,
				      sizeof err), -1);
	ck_assert_msg(strstr(err, "conditional rules with different actions"), "%s", err);
}
END_TEST

START_TEST(test_late_filter_only_when_needed)
{
	struct syscall_rule rule = { .name = "sendmsg", .errnum = EACCES };
	struct policy_ready *ready = prepare("default", NULL, 0);
	struct policy_programs p;

	policy_ready_programs(ready, &p);
	ck_assert(p.notify && !p.late);
	policy_ready_free(ready);
	ready = prepare("default", &rule, 1);
	policy_ready_programs(ready, &p);
	ck_assert(p.notify && p.late);
	policy_ready_free(ready);
}
END_TEST

START_TEST(test_no_reporting_filters_in_bwrap_mode_or_without_filter)
{
	struct plan plan = { .mode = MODE_BWRAP, .report_fd = -1 };
	struct policy_ready *ready = NULL;
	struct policy_programs p;
	char err[ERRLEN];

	ck_assert_int_eq(policy_prepare(&plan, &ready, err, sizeof err), 0);
	policy_ready_programs(ready, &p);
	ck_assert(!p.notify && !p.late);
	policy_ready_free(ready);
	ready = prepare("none", NULL, 0);
	policy_ready_programs(ready, &p);
	ck_assert(!p.notify && !p.late);
	policy_ready_free(ready);
}
END_TEST

/* ---- the hand-over, live ---- */

static int hand_over_sock = -1;

/* The test's stand-in for report_send_listener: the fd goes to the parent
 * (or, for -EBUSY, a note with no fd). */
static int send_to_parent(struct sandbox *sb, int listener)
{
	char tag = listener >= 0 ? 'L' : 'N';
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int))];
	} control = { 0 };
	struct iovec iov = { .iov_base = &tag, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t sent;

	(void)sb;
	if (listener >= 0) {
		struct cmsghdr *c;

		msg.msg_control = control.buf;
		msg.msg_controllen = sizeof control.buf;
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &listener, sizeof(int));
	}
	sent = sendmsg(hand_over_sock, &msg, 0);
	if (listener >= 0)
		close(listener);
	return sent == 1 ? 0 : -1;
}

static int receive_listener(int sock, char *tag)
{
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int))];
	} control;
	struct iovec iov = { .iov_base = tag, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = control.buf,
			      .msg_controllen = sizeof control.buf };
	struct cmsghdr *c;
	int fd = -1;

	ck_assert_int_eq(recvmsg(sock, &msg, 0), 1);
	c = CMSG_FIRSTHDR(&msg);
	if (c && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* Answer every notification as hutch does, until no process uses the
 * filter any more; returns how many were answered. */
static int answer_all(const struct policy_ready *ready, int listener)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	struct pollfd pfd = { .fd = listener, .events = POLLIN };
	const char *source;
	int answered = 0;

	while (poll(&pfd, 1, 10000) == 1 && (pfd.revents & POLLIN)) {
		memset(&req, 0, sizeof req);
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
			continue;
		memset(&resp, 0, sizeof resp);
		resp.id = req.id;
		resp.error = -policy_refusal(ready, req.data.nr,
					     (const uint64_t *)req.data.args,
					     &source);
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) == 0)
			answered++;
	}
	return answered;
}

/* ---- what reaches a notifying filter here ----
 *
 * A filter of the machine's (a container engine's seccomp profile refuses
 * bpf) outranks a notification: such a call never reaches hutch's
 * listener, and gets that filter's errno. */

static long notified_call(long nr)
{
	return syscall(nr, 0, 0, 0);
}

/* Does NR, made as child_calls makes it, reach a filter of our own that
 * notifies a listener?  Measured in a child, which installs that filter
 * and makes the call from a grandchild: notified, the grandchild waits;
 * refused before, it exits. */
static bool reaches_listener(long nr)
{
	int status = 0;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct sock_filter f[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog prog = { .len = 4, .filter = f };
		struct pollfd p[2];
		int listener;
		pid_t caller;

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    (listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
					     SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog)) < 0)
			_exit(99);
		caller = fork();
		if (caller == 0) {
			notified_call(nr);
			_exit(0);
		}
		p[0] = (struct pollfd){ .fd = listener, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = (int)syscall(SYS_pidfd_open, caller, 0),
					.events = POLLIN };
		if (caller < 0 || p[1].fd < 0 || poll(p, 2, 10000) <= 0)
			_exit(98);
		kill(caller, SIGKILL);
		_exit(p[0].revents & POLLIN ? 1 : 0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) <= 1, "probe status 0x%x", status);
	return WEXITSTATUS(status) == 1;
}

/* The errno of NR without any filter of ours, from a child. */
static int errno_unfiltered(long nr)
{
	int status = 0;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(notified_call(nr) < 0 ? errno & 0xff : 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return WEXITSTATUS(status);
}

/* What bpf and keyctl give under the default policy here, and how many
 * of them hutch answers; set by expect_calls. */
static int bpf_errno = EPERM, keyctl_errno = ENOSYS, notified = 2;

static void expect_calls(void)
{
	bool bpf = reaches_listener(SYS_bpf), keyctl = reaches_listener(SYS_keyctl);

	bpf_errno = bpf ? EPERM : errno_unfiltered(SYS_bpf);
	keyctl_errno = keyctl ? ENOSYS : errno_unfiltered(SYS_keyctl);
	notified = bpf + keyctl;
	if (notified < 2)
		fprintf(stderr, "note: a filter of the machine's refuses %s before hutch's\n",
			bpf ? "keyctl" : keyctl ? "bpf" : "bpf and keyctl");
}

/* The errno of each call, as exit status bits: 1 bpf, 2 keyctl, 4
 * sendmsg, 8 seccomp, each set when the errno is the expected one.
 * NESTED: hutch's plain filter refuses bpf and keyctl itself; where a
 * filter of the machine's refuses them too (an errno, as Docker's
 * profile refuses keyctl), the kernel returns the errno of the filter
 * installed last, hutch's: EPERM and ENOSYS whatever the machine's. */
static int child_calls(bool nested)
{
	int ok = 0;

	errno = 0;
	ok |= (notified_call(SYS_bpf) < 0 && errno == (nested ? EPERM : bpf_errno)) ? 1 : 0;
	ok |= (notified_call(SYS_keyctl) < 0 && errno == (nested ? ENOSYS : keyctl_errno)) ? 2 : 0;
	ok |= (syscall(SYS_sendmsg, -1, NULL, 0) < 0 && errno == EACCES) ? 4 : 0;
	ok |= (syscall(SYS_seccomp, 0xbad, 0, NULL) < 0 && errno == EINVAL) ? 8 : 0;
	return ok;
}

/* A filter with a listener already: what a nested sandbox finds. */
static void install_outer_listener(void)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { .len = 1, .filter = &allow };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog) < 0)
		_exit(99);
}

/* Fork; the child applies the reporting policy (nested under a listener
 * if NESTED) and makes the calls; the parent answers.  Returns the
 * child's exit status, *TAG the message it sent, *ANSWERED the count. */
static int run_child(bool nested, char *tag, int *answered)
{
	struct syscall_rule rule = { .name = "sendmsg", .errnum = EACCES };
	struct policy_ready *ready = prepare("default", &rule, 1);
	struct plan plan = { .seccomp_policy = "default", .report_fd = -1 };
	char err[ERRLEN] = "";
	int sv[2], status = 0, listener;
	pid_t pid;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(sv[0]);
		hand_over_sock = sv[1];
		if (nested)
			install_outer_listener();
		if (policy_apply_reporting(&plan, ready, send_to_parent, NULL,
					   err, sizeof err) < 0)
			_exit(98);
		_exit(child_calls(nested));
	}
	close(sv[1]);
	listener = receive_listener(sv[0], tag);
	*answered = listener >= 0 ? answer_all(ready, listener) : 0;
	if (listener >= 0)
		close(listener);
	close(sv[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	policy_ready_free(ready);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* Plain: bpf and keyctl notified and answered, sendmsg refused by the
 * late filter (not notified, no wait), seccomp allowed (EINVAL).  Nested
 * under a listener: a note instead of the listener, and the plain filter
 * gives the same errnos with nothing notified. */
static const struct {
	bool nested;
	char tag;
	int answered;
} hand_overs[] = {
	{ false, 'L', 2 },
	{ true, 'N', 0 },
};

START_TEST(test_hand_over)
{
	char tag = 0;
	int answered = -1;

	expect_calls();
	ck_assert_int_eq(run_child(hand_overs[_i].nested, &tag, &answered), 15);
	ck_assert_int_eq(tag, hand_overs[_i].tag);
	/* 2, bpf and keyctl, where nothing refuses one of them first */
	ck_assert_int_eq(answered, hand_overs[_i].answered == 2 ? notified :
			 hand_overs[_i].answered);
}
END_TEST

/* One JSON string escaper for explain, status and reports: UTF-8 kept,
 * controls and stray bytes escaped, so every document stays valid JSON. */
static void json_of(const char *s, char *buf, size_t len)
{
	size_t o = 0, used;
	char enc[8];

	for (; *s; s += used) {
		size_t n = json_encode_char(s, enc, &used);

		ck_assert_uint_lt(o + n, len);
		memcpy(buf + o, enc, n);
		o += n;
	}
	buf[o] = '\0';
}

START_TEST(test_json_encode_char)
{
	char buf[128];

	json_of("a\"b\\c", buf, sizeof(buf));
	ck_assert_str_eq(buf, "a\\\"b\\\\c");
	json_of("\033[31m\n", buf, sizeof(buf));
	ck_assert_str_eq(buf, "\\u001b[31m\\u000a");
	json_of("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", buf, sizeof(buf));
	ck_assert_str_eq(buf, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	/* stray, overlong, surrogate, past U+10FFFF, cut short */
	json_of("\xff\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82", buf, sizeof(buf));
	ck_assert_str_eq(buf, "\\u00ff\\u00c0\\u00af\\u00ed\\u00a0\\u0080\\u00f4\\u0090"
			 "\\u0080\\u0080\\u00e2\\u0082");
	json_of("\x7f", buf, sizeof(buf));
	ck_assert_str_eq(buf, "\\u007f");
}
END_TEST

static Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("report");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_json_encode_char);
	tcase_add_test(tc, test_refusal_errno_and_line);
	tcase_add_test(tc, test_refusal_command_line_rule);
	tcase_add_loop_test(tc, test_reporting_filters_match_plain, 0,
			    sizeof policies / sizeof *policies);
	tcase_add_test(tc, test_late_filter_only_when_needed);
	tcase_add_test(tc, test_reporting_only_when_expressible);
	tcase_add_test(tc, test_no_reporting_filters_in_bwrap_mode_or_without_filter);
	tcase_add_loop_test(tc, test_hand_over, 0,
			    sizeof hand_overs / sizeof *hand_overs);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(report_suite());
}
