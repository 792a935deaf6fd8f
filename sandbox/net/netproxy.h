/* The --allow-net proxy.  pid 1 makes its listening sockets in the
 * sandbox's network namespace during set-up and hands them to the
 * proxy's worker, a confined child of the supervisor, which accepts,
 * reads each request and relays the bytes; the supervisor decides each
 * request (the rules, a lookup on the host in a short-lived child, the
 * connect from the host's namespace) from a fixed-size ask, and hands
 * the connected socket over, never waiting on any of it.  Without
 * --allow-net none of this exists. */
#ifndef HUTCH_NETPROXY_H
#define HUTCH_NETPROXY_H

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

#endif
