/* net/: --allow-net and the calls the supervisor answers for COMMAND.
 *
 * The --allow-net proxy.  pid 1 makes its listening sockets in the
 * sandbox's network namespace during set-up and hands them to the
 * proxy's worker, a confined child of the supervisor, which accepts,
 * reads each request and relays the bytes; the supervisor decides each
 * request (the rules, a lookup on the host in a short-lived child, the
 * connect from the host's namespace) from a fixed-size ask, and hands
 * the connected socket over, never waiting on any of it.  Without
 * --allow-net none of this exists.
 *
 * Violation reports (report.c): the default policy's refusals reach the
 * supervisor as seccomp user notifications; it answers each with the
 * policy's errno (the connect broker's calls through connect_broker.c)
 * and records it (--report FILE, --report-fd FD), with the proxy's
 * events, and says at exit how many actions were refused.
 *
 * The folder's public header: files outside net/ include this one only. */
#ifndef HUTCH_NET_PUBLIC_H
#define HUTCH_NET_PUBLIC_H

#include <stdbool.h>
#include <stddef.h>

struct sandbox;

/* Supervisor, prepare: the socket the listeners go over, and the
 * worker forked and confined. */
int netproxy_prepare(struct sandbox *sb);
/* pid 1, mounts stage, in the new network namespace with loopback up:
 * listen on 127.0.0.1 and ::1 at NET_PROXY_PORT, hand both over. */
int netproxy_child_listen(struct sandbox *sb);
/* Supervisor, run stage: the proxy joins the poll loop. */
int netproxy_start(struct sandbox *sb);
/* Supervisor, at exit: the worker's connections reported, the worker
 * and the resolvers reaped, one line on stderr if requests were refused. */
void netproxy_finish(struct sandbox *sb);

/* Supervisor, prepare: the socketpair the listener fd comes back on. */
int report_prepare(struct sandbox *sb);

/* Supervisor, after clone: keep only its end, start polling it. */
int report_started(struct sandbox *sb);

/* COMMAND's process, after the filter is loaded: hand LISTENER to the
 * supervisor (SCM_RIGHTS) and close it.  LISTENER < 0: nothing to send. */
int report_send_listener(struct sandbox *sb, int listener);

/* Supervisor, after the run: the summary line, close the report. */
void report_finish(struct sandbox *sb);

/* --doctor: can this host resolve a name and reach it on port 443, within
 * SECONDS in all?  DETAIL says what happened; true if it can. */
bool net_probe_host(double seconds, char *detail, size_t len);

#endif
