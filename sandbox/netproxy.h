/* The --allow-net proxy.  pid 1 makes its listening sockets in the
 * sandbox's network namespace during set-up and hands them to the
 * supervisor, which serves them in its poll loop: it reads each request,
 * checks it against the rules, resolves names on the host (in a
 * short-lived child), connects from the host's namespace and relays the
 * bytes, never waiting on any of it.  Without --allow-net none of this
 * exists. */
#ifndef HUTCH_NETPROXY_H
#define HUTCH_NETPROXY_H

struct sandbox;

/* Supervisor, prepare: the socket the listeners come back on. */
int netproxy_prepare(struct sandbox *sb);
/* pid 1, mounts stage, in the new network namespace with loopback up:
 * listen on 127.0.0.1 and ::1 at NET_PROXY_PORT, hand both over. */
int netproxy_child_listen(struct sandbox *sb);
/* Supervisor, run stage: the proxy joins the poll loop. */
int netproxy_start(struct sandbox *sb);
/* Supervisor, at exit: every connection closed and reported, the
 * resolvers reaped, one line on stderr if requests were refused. */
void netproxy_finish(struct sandbox *sb);

#endif
