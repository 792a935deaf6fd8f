/* What a client of hutch's proxy asks for: the head of an HTTP request
 * (CONNECT host:port, or an absolute-URI http:// request), or a SOCKS5
 * greeting and CONNECT request.  Pure, bounded parsers of bytes already
 * read, for the unit tests and the fuzzer as much as for the proxy. */
#ifndef HUTCH_NETREQUEST_H
#define HUTCH_NETREQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "plan/plan.h"

/* The longest request head (request line and headers) the proxy reads;
 * a longer one is refused. */
#define NET_HEAD_MAX 16384

enum net_proto {
	NET_PROTO_CONNECT,	/* HTTP CONNECT: a tunnel */
	NET_PROTO_HTTP,		/* a plain HTTP request, forwarded */
	NET_PROTO_SOCKS5,
	NET_PROTO_TCP,		/* a plain connect() of COMMAND (netconnect.c), never the worker's */
};

/* The outcome of a parse of the bytes read so far. */
enum net_parse {
	NET_PARSE_MORE,		/* incomplete: read more */
	NET_PARSE_DONE,		/* complete */
	NET_PARSE_BAD,		/* malformed: refuse (why says how) */
	NET_PARSE_TOO_LONG,	/* longer than NET_HEAD_MAX */
};

struct net_request {
	enum net_proto proto;
	char host[NET_NAME_MAX + 2];	/* lowercase name or literal, no brackets */
	int port;
	size_t head_len;	/* bytes of the head; what follows is payload */
	/* NET_PROTO_HTTP: where the request line's parts lie in the head */
	size_t method_len;
	size_t path_off, path_len;	/* the origin-form target ("/x?y") */
	size_t version_off, version_len;
	/* NET_PROTO_HTTP: the body's length (Content-Length, or 0); a body
	 * in chunks is refused, so that where a request ends is known. */
	unsigned long long body_len;
};

/* Parse an HTTP request head in BUF (LEN bytes read so far).  On
 * NET_PARSE_BAD, WHY says what is wrong. */
enum net_parse net_http_parse(const char *buf, size_t len, struct net_request *req,
			      char *why, size_t whylen);

/* The head to send to the server for a plain HTTP request: the request
 * line in origin form, the proxy's own headers (Proxy-Connection,
 * Proxy-Authorization, Connection, Keep-Alive) dropped, and
 * "Connection: close", so that one connection carries one request to the
 * host the rules allowed.  The length written, or -1 if OUT is short. */
ssize_t net_http_rewrite(const char *head, const struct net_request *req, char *out,
			 size_t outlen);

/* SOCKS5 (RFC 1928), no authentication.  The greeting: VER NMETHODS
 * METHODS.  DONE with *USED its length and *NOAUTH whether method 0 is
 * offered. */
enum net_parse net_socks_greeting(const unsigned char *buf, size_t len, size_t *used,
				  bool *noauth);

/* SOCKS5 reply codes. */
#define SOCKS_OK 0x00
#define SOCKS_FAILURE 0x01
#define SOCKS_NOT_ALLOWED 0x02
#define SOCKS_HOST_UNREACHABLE 0x04
#define SOCKS_REFUSED 0x05
#define SOCKS_TTL_EXPIRED 0x06
#define SOCKS_BAD_COMMAND 0x07
#define SOCKS_BAD_ADDRESS 0x08

/* The request: VER CMD RSV ATYP ADDR PORT.  DONE fills REQ (head_len its
 * length); BAD sets *REPLY to the code to answer with. */
enum net_parse net_socks_request(const unsigned char *buf, size_t len,
				 struct net_request *req, int *reply);

#endif
