/* The --allow-net proxy's records: the JSON line each connection leaves
 * in the --report (allowed, refused or failed, with the rule, the address
 * and the bytes), the line that counts those the rate limit dropped, and
 * the one line on stderr at exit that says how many requests were
 * refused.  What it defends against, and how:
 *  - a flood of connections filling the report: report.c's rate limit
 *    drops lines, and the count dropped is written once at exit;
 *  - a host name that would break the report's JSON: every string goes
 *    through the JSON writer's escaper. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learn/learn.h"
#include "lib/lib.h"
#include "messages/messages.h"
#include "netproxy_decide.h"
#include "report.h"
#include "sandbox.h"

/* ---- reports ---- */

static const char *proto_name(enum net_proto proto)
{
	switch (proto) {
	case NET_PROTO_SOCKS5: return "socks5";
	case NET_PROTO_CONNECT: return "connect";
	case NET_PROTO_TCP: return "tcp";
	default: return "http";
	}
}

/* The fields of a connection's line, after its time and kind. */
static void record_fields(const struct proxy_record *r, const char *verdict,
			  const char *reason, struct json_writer *w)
{
	char addr[64] = "";

	json_key(w, "protocol");
	json_string(w, proto_name(r->proto));
	json_key(w, "host");
	json_string(w, r->host);
	json_key(w, "port");
	if (r->host)
		json_int(w, r->port);
	else
		json_null(w);
	json_key(w, "verdict");
	json_string(w, verdict);
	json_key(w, "rule");
	json_string(w, r->rule ? r->rule->text : NULL);
	json_key(w, "origin");
	json_string(w, r->rule ? r->rule->origin : NULL);
	if (r->address)
		netrule_addr_format(r->address, addr, sizeof(addr));
	json_key(w, "address");
	json_string(w, addr[0] ? addr : NULL);
	json_key(w, "reason");
	json_string(w, reason);
	json_key(w, "bytes_out");
	if (r->bytes_unknown)
		json_null(w);
	else
		json_uint(w, r->bytes_out);
	json_key(w, "bytes_in");
	if (r->bytes_unknown)
		json_null(w);
	else
		json_uint(w, r->bytes_in);
	json_key(w, "seconds");
	json_number(w, "%.3f", r->seconds);
}

/* A report line begun on F: {"time":NOW,"kind":"net" and the caller's
 * fields to follow. */
static void begin_net_line(FILE *f, struct json_writer *w)
{
	char when[40];

	report_time(when, sizeof(when));
	json_init(w, f, 0);
	json_begin_object(w, JSON_COMPACT);
	json_key(w, "time");
	json_string(w, when);
	json_key(w, "kind");
	json_string(w, "net");
}

/* The line ended, and handed to the report: false if it was dropped. */
static bool end_net_line(struct sandbox *sb, FILE *f, struct json_writer *w, char **line,
			 size_t *len, bool limited)
{
	bool written;

	json_end_object(w);
	fputc('\n', f);
	fclose(f);
	written = !*line || report_write_event(sb, *line, *len, limited);
	free(*line);
	return written;
}

/* One line: VERDICT "allowed", "refused" or "failed"; REASON or NULL. */
void netproxy_report(struct sandbox *sb, const struct proxy_record *r, const char *verdict,
		     const char *reason)
{
	struct json_writer w;
	char *line = NULL;
	size_t len = 0;
	FILE *f;

	if (strcmp(verdict, "refused") == 0)
		learn_refused_net(sb, r->host, r->port);
	if (!report_enabled(sb) || !(f = open_memstream(&line, &len)))
		return;
	begin_net_line(f, &w);
	record_fields(r, verdict, reason, &w);
	if (!end_net_line(sb, f, &w, &line, &len, true))
		sb->net->lines_dropped++;
}

void netproxy_count_refusal(struct netproxy_state *st, const struct proxy_record *r,
			    const char *reason)
{
	if (st->refused++ > 0)
		return;
	if (r->host)
		st->first = xasprintf("%s%s%s:%d", strchr(r->host, ':') ? "[" : "", r->host,
				      strchr(r->host, ':') ? "]" : "", r->port);
	else
		st->first = xasprintf("%s", reason);
}

void netproxy_report_line(struct sandbox *sb, const struct proxy_record *r, const char *verdict,
			  const char *reason, bool count)
{
	if (count)
		netproxy_count_refusal(sb->net, r, reason);
	netproxy_report(sb, r, verdict, reason);
}

/* ---- at exit ---- */

void netproxy_write_dropped_line(struct sandbox *sb)
{
	struct json_writer w;
	char *line = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);

	if (!f)
		return;
	begin_net_line(f, &w);
	json_key(&w, "dropped");
	json_uint(&w, sb->net->lines_dropped);
	json_key(&w, "reason");
	json_string(&w, "more than 100 lines a second");
	(void)end_net_line(sb, f, &w, &line, &len, false);
}

void netproxy_print_summary(struct sandbox *sb)
{
	struct netproxy_state *st = sb->net;
	const char *dest = report_destination(sb);
	const char *s = st->refused == 1 ? "" : "s";
	char msg[1024];

	if (dest)
		snprintf(msg, sizeof(msg), "%llu network request%s refused (see %s)", st->refused,
			 s, dest);
	else
		snprintf(msg, sizeof(msg), "%llu network request%s refused (first: %s); use "
			 "--report FILE for details", st->refused, s, st->first ? st->first : "?");
	log_warning(sb->plan->prog, msg);
}
