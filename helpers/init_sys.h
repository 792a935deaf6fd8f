/* The system calls hutch-init makes, and nothing else.
 *
 * Built with HUTCH_INIT_NOLIBC (x86_64 and aarch64), the init has no C
 * library at all: a few kilobytes, started without a dynamic loader or
 * libc start-up, which on a machine with slow page faults costs
 * milliseconds per launch.  Built without it (other architectures, and
 * the sanitizer build of tests/unit/test_init.sh), the same calls go
 * through libc's syscall().  Either way every call returns the kernel's
 * answer: a result, or -errno.
 *
 * Only kernel UAPI headers are used for types and constants, in both
 * builds, so that the code above this layer is the same. */
#ifndef HUTCH_INIT_SYS_H
#define HUTCH_INIT_SYS_H

#include <asm/unistd.h>
#include <asm/poll.h>
#include <asm/siginfo.h>
#include <asm/signal.h>
#include <linux/errno.h>
#include <linux/fcntl.h>
#include <linux/prctl.h>
#include <linux/signalfd.h>
#include <linux/stat.h>
#include <linux/time_types.h>
#include <linux/wait.h>

#ifndef S_IFMT
#define S_IFMT 00170000
#define S_IFCHR 0020000
#define S_ISCHR(m) (((m) & S_IFMT) == S_IFCHR)
#endif

/* The kernel's sigset_t, whatever asm/signal.h says of the old one: 64
 * signals (128 on MIPS), in unsigned longs, signal N at bit N - 1. */
#if defined(__mips__)
#define KERNEL_SIGSET_SIZE 16
#else
#define KERNEL_SIGSET_SIZE 8
#endif
#define SIGSET_LONG_BITS (8 * sizeof(unsigned long))

struct kernel_sigset {
	unsigned long w[KERNEL_SIGSET_SIZE / sizeof(unsigned long)];
};

static inline void kernel_sigset(struct kernel_sigset *set, const int *sigs, int n)
{
	for (unsigned i = 0; i < sizeof(set->w) / sizeof(set->w[0]); i++)
		set->w[i] = 0;
	for (int i = 0; i < n; i++)
		set->w[(sigs[i] - 1) / SIGSET_LONG_BITS] |=
			1UL << ((sigs[i] - 1) % SIGSET_LONG_BITS);
}

/* ppoll with a 64-bit timespec: the time64 call where there is one (32-bit
 * architectures), else the plain one (whose timespec is 64-bit there). */
#ifdef __NR_ppoll_time64
#define INIT_NR_PPOLL __NR_ppoll_time64
#else
#define INIT_NR_PPOLL __NR_ppoll
#endif

/* getdents64's record, which no UAPI header declares. */
struct init_dirent64 {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

#ifdef HUTCH_INIT_NOLIBC

#if defined(__x86_64__)
static inline long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/* The kernel's initial stack: argc, then argv; main gets them. */
__asm__(".text\n"
	".global _start\n"
	"_start:\n"
	"	xor %rbp, %rbp\n"
	"	mov %rsp, %rdi\n"
	"	and $-16, %rsp\n"
	"	call init_start\n"
	"	hlt\n");
#elif defined(__aarch64__)
static inline long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;

	__asm__ volatile("svc #0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory", "cc");
	return x0;
}

__asm__(".text\n"
	".global _start\n"
	"_start:\n"
	"	mov x29, #0\n"
	"	mov x30, #0\n"
	"	mov x0, sp\n"
	"	bl init_start\n"
	"	brk #0\n");
#else
#error "HUTCH_INIT_NOLIBC: no system call layer for this architecture"
#endif

int main(int argc, char **argv);

__attribute__((used, noreturn)) void init_start(long *sp);
void init_start(long *sp)
{
	int status = main((int)sp[0], (char **)(sp + 1));

	for (;;)
		sys6(__NR_exit_group, status, 0, 0, 0, 0, 0);
}

/* What the compiler may call for a struct's initialiser or copy. */
void *memset(void *dst, int c, unsigned long n);
void *memset(void *dst, int c, unsigned long n)
{
	unsigned char *d = dst;

	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

void *memcpy(void *dst, const void *src, unsigned long n);
void *memcpy(void *dst, const void *src, unsigned long n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	while (n--)
		*d++ = *s++;
	return dst;
}

#else /* through libc */

#include <errno.h>
#include <unistd.h>

static inline long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
	long r = syscall(nr, a, b, c, d, e, f);

	return r < 0 ? -errno : r;
}

#endif

#define SYS0(nr) sys6(nr, 0, 0, 0, 0, 0, 0)
#define SYS(nr, a, b, c) sys6(nr, (long)(a), (long)(b), (long)(c), 0, 0, 0)

/* The calls, each as the kernel has it. */
static inline long sys_read(int fd, void *buf, unsigned long n)
{
	return SYS(__NR_read, fd, buf, n);
}

static inline long sys_write(int fd, const void *buf, unsigned long n)
{
	return SYS(__NR_write, fd, buf, n);
}

static inline long sys_close(int fd)
{
	return SYS(__NR_close, fd, 0, 0);
}

static inline long sys_close_range(unsigned first, unsigned last)
{
	return SYS(__NR_close_range, first, last, 0);
}

static inline long sys_openat(int dir, const char *path, int flags)
{
	return sys6(__NR_openat, dir, (long)path, flags, 0, 0, 0);
}

static inline long sys_fcntl(int fd, int cmd)
{
	return SYS(__NR_fcntl, fd, cmd, 0);
}

static inline long sys_chdir(const char *path)
{
	return SYS(__NR_chdir, path, 0, 0);
}

static inline long sys_prctl(int option, unsigned long arg)
{
	return sys6(__NR_prctl, option, (long)arg, 0, 0, 0, 0);
}

static inline long sys_getpid(void)
{
	return SYS0(__NR_getpid);
}

static inline long sys_kill(int pid, int sig)
{
	return SYS(__NR_kill, pid, sig, 0);
}

static inline __attribute__((noreturn)) void sys_exit(int status)
{
	for (;;)
		SYS(__NR_exit_group, status, 0, 0);
}

/* poll through ppoll, which every architecture has: TIMEOUT_MS 0 or -1. */
static inline long sys_poll(struct pollfd *fds, unsigned n, int timeout_ms)
{
	struct __kernel_timespec zero = { 0, 0 };

	return sys6(INIT_NR_PPOLL, (long)fds, n, timeout_ms == 0 ? (long)&zero : 0, 0,
		    KERNEL_SIGSET_SIZE, 0);
}

static inline long sys_waitid(int idtype, int id, siginfo_t *si, int options)
{
	return sys6(__NR_waitid, idtype, id, (long)si, options, 0, 0);
}

static inline long sys_pidfd_open(int pid)
{
	return SYS(__NR_pidfd_open, pid, 0, 0);
}

static inline long sys_pidfd_send_signal(int pidfd, int sig)
{
	return sys6(__NR_pidfd_send_signal, pidfd, sig, 0, 0, 0, 0);
}

static inline long sys_getdents64(int fd, void *buf, unsigned long n)
{
	return SYS(__NR_getdents64, fd, buf, n);
}

static inline long sys_statx(int dir, const char *name, int flags, unsigned mask,
			     struct statx *st)
{
	return sys6(__NR_statx, dir, (long)name, flags, mask, (long)st, 0);
}

static inline long sys_sigprocmask_block(const struct kernel_sigset *set)
{
	return sys6(__NR_rt_sigprocmask, SIG_BLOCK, (long)set, 0, KERNEL_SIGSET_SIZE, 0, 0);
}

static inline long sys_signalfd(const struct kernel_sigset *set, int flags)
{
	return sys6(__NR_signalfd4, -1, (long)set, KERNEL_SIGSET_SIZE, flags, 0, 0);
}

/* SIG's default disposition back: an all-zero kernel sigaction, whatever
 * its layout on this architecture, is SIG_DFL with no flags and no mask. */
static inline long sys_signal_default(int sig)
{
	unsigned long zero[8] = { 0 };

	return sys6(__NR_rt_sigaction, sig, (long)zero, 0, KERNEL_SIGSET_SIZE, 0, 0);
}

#endif
