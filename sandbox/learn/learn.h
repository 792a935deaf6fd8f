/* learn/: --learn FILE: what COMMAND was refused or lacked, written as a
 * profile that allows it.
 *
 * Who reads what, with what rights:
 *  - the seccomp filter notifies the path calls (seccomp_learn_calls)
 *    too; the supervisor holds each and hands the observer a fixed-size
 *    request it made from the kernel's fields (the pid in the sandbox,
 *    the call, its arguments), and lets the call continue once the
 *    observer acks that it read the path, or at a deadline;
 *  - the observer, a process in the sandbox with COMMAND's view and no
 *    more than COMMAND's rights, reads the path from the caller's
 *    memory, looks at it in the sandbox's file system and sends back a
 *    record of what was missing or read-only (learn_observer.c);
 *  - the supervisor takes a record only whole and checked
 *    (learn_record.c), never parsing a byte more, and counts it;
 *  - at the end a short-lived child with the caller's rights and none
 *    of the supervisor's fds looks each path up on the host (openat2
 *    following no link, fstat, DIR/.git and a directory's FIFOs looked
 *    for, no write, never into a FUSE or autofs mount; SIGKILL at a
 *    deadline and never waited for past it), and its answer, two bytes
 *    a path, is checked again;
 *  - the supervisor judges and writes the profile (learn_text.c): FILE
 *    is made at prepare as --report's is, and at the end the text goes
 *    to a new file renamed over it (lib/hostfile.c).
 * The seccomp policy's refusals (net/report.c) and the proxy's
 * (net/netproxy_report.c) come in as they are counted; the limits that
 * ended COMMAND from limits/.  Without --learn none of this exists.
 *
 * The hooks, in the order the stages call them, follow the feature
 * table's: prepare, attach, command, start, finish. */
#ifndef HUTCH_LEARN_PUBLIC_H
#define HUTCH_LEARN_PUBLIC_H

#include <linux/seccomp.h>
#include <stdbool.h>
#include <sys/types.h>

struct sandbox;

/* Supervisor, before clone: FILE opened, the channels made. */
int learn_prepare(struct sandbox *sb);
/* Supervisor, once pid 1 exists: the sandbox's ends closed here. */
int learn_attach(struct sandbox *sb);
/* COMMAND's process, before its policy: the observer forked, which
 * takes on COMMAND's policy before it reads anything. */
int learn_command(struct sandbox *sb);
/* Supervisor, as the loop begins: the observer's records polled. */
int learn_start(struct sandbox *sb);
/* Supervisor, every way out: the host looked up, FILE written. */
void learn_finish(struct sandbox *sb);

/* Supervisor, a notification the policy allows (report.c): a call
 * --learn watches is let continue and handed to the observer; false
 * when it is none of --learn's. */
bool learn_answer(struct sandbox *sb, int listener, const struct seccomp_notif *req);
/* Supervisor: the policy refused REQ's call, by the rule SOURCE. */
void learn_refused_call(struct sandbox *sb, const struct seccomp_notif *req,
			const char *source);
/* Supervisor: the proxy refused a request for HOST (NULL: none was
 * read) and PORT, or the sandbox's resolver a name (PORT 0). */
void learn_refused_net(struct sandbox *sb, const char *host, int port);

#endif
