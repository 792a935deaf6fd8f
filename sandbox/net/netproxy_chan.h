/* The --allow-net proxy's one channel between its two processes: the
 * worker, confined, which reads every byte the sandbox sends, and the
 * supervisor, which decides.  A SOCK_SEQPACKET socketpair; each message
 * is one of the fixed-size structs below, nothing else: the supervisor
 * reads no byte the sandbox wrote but the fields of a struct proxy_ask,
 * and checks each (netproxy_ask_valid) before it looks at any. */
#ifndef HUTCH_NETPROXY_CHAN_H
#define HUTCH_NETPROXY_CHAN_H

#include <stdbool.h>
#include <stdint.h>

#include "netrequest.h"
#include "netresolve.h"

#define PROXY_MAX_CONNS 64	/* connections at once: the worker's slots, the ids */
#define PROXY_REASON_LEN 640	/* a refusal's words: a host name and more */
#define PROXY_DNS_SLOTS 16	/* the sandbox's resolver's questions at once */

/* pid 1 -> worker, on the hand-over socket: the tag of the sandbox's
 * resolver's UDP socket (the listeners' are '4' and '6'). */
#define PROXY_TAG_DNS 'D'

/* Worker -> supervisor. */
enum proxy_ask_kind {
	ASK_CONNECT = 1,	/* a whole request: decide, and connect if allowed */
	ASK_REFUSED,		/* refused by the worker (a bad or late head): count, report */
	ASK_CLOSED,		/* a connection the supervisor connected has ended */
	ASK_DNS,		/* the sandbox's resolver: the addresses of HOST, of QTYPE */
};

struct proxy_ask {
	uint32_t kind;			/* enum proxy_ask_kind */
	uint32_t id;			/* the worker's slot, < PROXY_MAX_CONNS */
	uint32_t proto;			/* enum net_proto */
	uint32_t port;			/* 1..65535; 0: no request was read */
	uint64_t bytes_out, bytes_in;	/* ASK_CLOSED: relayed each way */
	uint32_t millis;		/* ASK_REFUSED, ASK_CLOSED: since accept */
	uint32_t qtype;			/* ASK_DNS: 1 (A) or 28 (AAAA); id < PROXY_DNS_SLOTS */
	char host[NET_NAME_MAX + 2];	/* NUL-terminated; "" with port 0 */
	char reason[PROXY_REASON_LEN];	/* ASK_REFUSED: printable ASCII, NUL-terminated */
};

/* Supervisor -> worker, for an ASK_CONNECT. */
enum proxy_verdict_kind {
	VERDICT_CONNECTED = 1,	/* the connected server socket comes with it */
	VERDICT_REFUSED,	/* answer STATUS (SOCKS5: SOCKS_CODE) and REASON */
	VERDICT_FAILED,		/* allowed, but the lookup or the connect failed */
	VERDICT_DNS,		/* for an ASK_DNS: RCODE, and N_ADDRS of ADDRS */
};

struct proxy_verdict {
	uint32_t kind;			/* enum proxy_verdict_kind */
	uint32_t id;
	int32_t status, socks_code;
	char reason[PROXY_REASON_LEN];
	int32_t rcode, n_addrs;		/* VERDICT_DNS */
	struct net_addr addrs[NET_MAX_ADDRS];
};

/* The worker's word once it is confined: ERR 0, or the errno of WHAT
 * that failed (the run then fails at prepare). */
struct proxy_ready {
	int32_t err;
	char what[64];
};

/* Every field of ASK within its bounds: the kind known, the id a slot,
 * the strings NUL-terminated, the reason printable, the port 0..65535
 * and the host a valid name or address when there is a port; for an
 * ASK_DNS, a question slot, a type A or AAAA and a valid name. */
bool netproxy_ask_valid(const struct proxy_ask *ask);

/* netproxy_worker.c: the worker's life, from its fork (with CHAN, its
 * end of the channel, and HANDOVER, where pid 1's listeners come) to
 * its exit. */
_Noreturn void netproxy_worker_main(int chan, int handover);

#endif
