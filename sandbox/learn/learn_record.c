/* --learn's records: made by the observer, checked by the supervisor
 * (see learn_record.h).  Pure.  What the check defends against: a
 * sandbox that writes its own records (it can: the socket's end is in
 * the sandbox) to put a line of its choosing into the profile.  A record
 * passes only whole, with a known kind, a clean command name and a path
 * that is one absolute, normal path of printable bytes: nothing in it
 * can end a line, start a comment or quote in the profile. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "learn_record.h"

static bool comm_byte_ok(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '+' || c == '-';
}

void learn_comm_clean(const char *comm, size_t len, char *out)
{
	size_t n = len < LEARN_COMM_MAX ? len : LEARN_COMM_MAX;

	for (size_t i = 0; i < n; i++)
		out[i] = comm_byte_ok((unsigned char)comm[i]) ? comm[i] : '?';
	out[n] = '\0';
	if (n == 0)
		strcpy(out, "?");
}

/* No control byte, no DEL, none of the profile's quoting or comment
 * bytes, no backslash: a path with one is not learned. */
static bool path_byte_ok(unsigned char c)
{
	return c >= 0x20 && c != 0x7f && c != '"' && c != '\'' && c != '\\' && c != '#' &&
	       c != '$' && c != ' ';
}

bool learn_path_valid(const char *path, size_t len)
{
	if (len == 0 || len >= LEARN_PATH_MAX || path[0] != '/')
		return false;
	if (len == 1)
		return true;
	if (path[len - 1] == '/')
		return false;
	for (size_t i = 0; i < len; i++) {
		if (!path_byte_ok((unsigned char)path[i]))
			return false;
		if (path[i] != '/')
			continue;
		/* the component after this slash: not empty, ".", ".." */
		size_t rest = len - i - 1;

		if (rest == 0 || path[i + 1] == '/')
			return false;
		if (path[i + 1] == '.' && (rest == 1 || path[i + 2] == '/'))
			return false;
		if (path[i + 1] == '.' && rest >= 2 && path[i + 2] == '.' &&
		    (rest == 2 || path[i + 3] == '/'))
			return false;
	}
	return true;
}

bool learn_record_check(const void *buf, size_t len, struct learn_event *out)
{
	struct learn_record rec;

	if (len < LEARN_RECORD_HEAD || len > sizeof(rec))
		return false;
	memset(&rec, 0, sizeof(rec));
	memcpy(&rec, buf, len);
	if (rec.magic != LEARN_RECORD_MAGIC || rec.kind < LEARN_READ || rec.kind >= LEARN_KIND_END)
		return false;
	if (rec.comm_len > LEARN_COMM_MAX || rec.path_len != len - LEARN_RECORD_HEAD)
		return false;
	if (!learn_path_valid(rec.path, rec.path_len))
		return false;
	out->kind = (enum learn_kind)rec.kind;
	learn_comm_clean(rec.comm, rec.comm_len, out->comm);
	memcpy(out->path, rec.path, rec.path_len);
	out->path[rec.path_len] = '\0';
	return true;
}

size_t learn_record_make(struct learn_record *rec, enum learn_kind kind, const char *comm,
			 const char *path)
{
	size_t plen = strlen(path), clen = strnlen(comm, LEARN_COMM_MAX);

	if (plen == 0 || plen >= LEARN_PATH_MAX)
		return 0;
	memset(rec, 0, LEARN_RECORD_HEAD);
	rec->magic = LEARN_RECORD_MAGIC;
	rec->kind = (uint8_t)kind;
	rec->comm_len = (uint8_t)clen;
	rec->path_len = (uint16_t)plen;
	memcpy(rec->comm, comm, clen);
	memcpy(rec->path, path, plen);
	return LEARN_RECORD_HEAD + plen;
}

/* Drop the last component of OUT (length *N, absolute). */
static void drop_last(char *out, size_t *n)
{
	while (*n > 1 && out[*n - 1] != '/')
		(*n)--;
	if (*n > 1)
		(*n)--;
	out[*n] = '\0';
}

void learn_path_normalize(char *path)
{
	size_t n = 1;
	const char *c = path;
	char *out = path;	/* writing never overtakes reading */

	if (path[0] != '/')
		return;
	while (*c) {
		size_t len;

		c += strspn(c, "/");
		len = strcspn(c, "/");
		if (len == 0)
			break;
		if (len == 1 && c[0] == '.') {
			c += len;
			continue;
		}
		if (len == 2 && c[0] == '.' && c[1] == '.') {
			out[n] = '\0';
			drop_last(out, &n);
			c += len;
			continue;
		}
		if (n > 1)
			out[n++] = '/';
		memmove(out + n, c, len);
		n += len;
		c += len;
	}
	out[n] = '\0';
	out[0] = '/';
}

pid_t learn_nspid_last(const char *status)
{
	const char *line = strstr(status, "\nNSpid:"), *end;
	long last = 0;

	if (strncmp(status, "NSpid:", 6) == 0)
		line = status;
	else if (line)
		line++;
	else
		return 0;
	end = strchr(line, '\n');
	for (const char *c = line + 6; *c && (!end || c < end); ) {
		char *after;
		long v = strtol(c, &after, 10);

		if (after == c)
			break;
		last = v;
		c = after;
	}
	return last > 0 && last <= INT_MAX ? (pid_t)last : 0;
}
