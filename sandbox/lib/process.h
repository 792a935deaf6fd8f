/* Process helpers below the stages: clone with a pidfd, what /proc says
 * of a process, closing an fd, and the monotonic clock. */
#ifndef HUTCH_PROCESS_H
#define HUTCH_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* clone3 with CLONE_PIDFD (clone where clone3 is refused), into
 * CGROUP_FD unless it is -1; FLAGS 0 is a fork with a pidfd. */
pid_t clone_with_pidfd(int flags, int *pidfd, int cgroup_fd);
/* The pid of PIDFD's process as this /proc names it (from its fdinfo),
 * or -1. */
pid_t pidfd_pid(int pidfd);
/* Send SIG to the process PIDFD pins; what pidfd_send_signal returns. */
int pidfd_signal(int pidfd, int sig);

/* The fields of /proc/PID/stat after the command name, in BUF; NULL
 * when it cannot be read. */
const char *proc_stat_fields(pid_t pid, char *buf, size_t len);
/* PID's parent as /proc/PID/stat says, or -1. */
pid_t proc_parent_of(pid_t pid);
/* PID's start time in clock ticks since boot, or 0: with the pid, it
 * names a process for good (a pid alone is recycled). */
unsigned long long proc_start_time(pid_t pid);

/* The number a small /proc or /sys file (a sysctl) holds, or -1 when
 * it cannot be read. */
long proc_read_number(const char *path);

/* SIGKILL when PARENT dies; false when it already has (this process
 * was reparented before the request took): a helper must then go. */
bool die_with(pid_t parent);

/* Close *FD unless it is -1, and set it to -1. */
void close_fd(int *fd);

/* CLOCK_MONOTONIC in seconds. */
double monotonic_now(void);
/* Arm the timerfd TIMER to fire once at NEXT on monotonic_now's clock
 * (0: disarm), unless *ARMED_FOR says it is armed for NEXT already;
 * a deadline past is due in a millisecond. */
void timer_arm_at(int timer, double *armed_for, double next);

#endif
