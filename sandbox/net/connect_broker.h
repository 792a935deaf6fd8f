/* The connect broker (hutch mode, namespace path): COMMAND's connect()
 * calls reach the supervisor as seccomp user notifications, and the
 * supervisor makes each connection on COMMAND's behalf, on COMMAND's own
 * socket, after checking where a pathname socket lives: no unix socket
 * of the host is reachable, from whatever directory the sandbox starts.
 * It also answers the calls that would get past it: socket() and
 * socketpair() of unix datagram sockets (a datagram needs no connect())
 * and io_uring_setup (its connect is no syscall). */
#ifndef HUTCH_CONNECT_BROKER_H
#define HUTCH_CONNECT_BROKER_H

#include <stdbool.h>
#include <linux/seccomp.h>

struct sandbox;

/* Supervisor, prepare: the sockets the plan binds by name.  0, or -1
 * with sb->err set. */
int connect_broker_prepare(struct sandbox *sb);
/* A notification the policy lets through: the broker's own calls are
 * answered here (now, or later for a connect still in progress) and
 * true is returned; false with *ERRNUM and *SOURCE set when the broker
 * refuses it (the caller answers and reports it), false with *ERRNUM 0
 * when it is none of the broker's calls. */
bool connect_broker_answer(struct sandbox *sb, int listener,
			   const struct seccomp_notif *req, int *errnum,
			   const char **source);
/* Supervisor, after the run or once the listener is gone: drop the
 * connections still in progress; later calls find no broker. */
void connect_broker_finish(struct sandbox *sb);

#endif
