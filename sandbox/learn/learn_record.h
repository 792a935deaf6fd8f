/* --learn's two channels between the supervisor and the observer in the
 * sandbox, and their records' checks (pure: unit-tested and fuzzed).
 *
 *  - request, supervisor -> observer (a pipe): a notified call, as the
 *    kernel gave it: the caller's pid as the sandbox sees it and as the
 *    supervisor does, the call's number and its six arguments, and a
 *    sequence number.  Fixed size,
 *    nothing of COMMAND's.  The call waits until the observer has read
 *    its path (an ack with the number) or a deadline passes.
 *  - record, observer -> supervisor (a SOCK_SEQPACKET socket, one record
 *    a message): what the observer found, a kind, the command's name and
 *    an absolute path in the sandbox; or an ack, the number of a request
 *    done with.  These bytes are the sandbox's:
 *    the supervisor takes a record only whole, with every field checked
 *    (learn_record_check), and never parses more of it. */
#ifndef HUTCH_LEARN_RECORD_H
#define HUTCH_LEARN_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define LEARN_RECORD_MAGIC 0x316e726cu	/* "lrn1" */
#define LEARN_ACK_MAGIC 0x6b636120u	/* " ack" */
#define LEARN_PATH_MAX 1024		/* longer paths are not learned */
#define LEARN_COMM_MAX 16		/* as /proc/PID/comm, without its NUL */

enum learn_kind {
	LEARN_READ = 1,		/* looked up or read; missing in the sandbox */
	LEARN_EXEC = 2,		/* executed; missing in the sandbox */
	LEARN_WRITE = 3,	/* written, made or removed on a read-only mount
				   (the path is the file, or the directory
				   where it was to be made or removed) */
	LEARN_MADE_IN = 4,	/* made or removed in a directory missing in
				   the sandbox (the path is the directory):
				   one call, never a reason to propose it */
	LEARN_KIND_END
};

struct learn_request {
	uint32_t seq;		/* echoed in the ack; 0: none awaited */
	uint32_t pid;		/* in the sandbox's pid namespace */
	uint32_t outer_pid;	/* in the supervisor's: where the sandbox's
				   /proc is a substitute of the outer one */
	int32_t nr;		/* the call, native architecture */
	uint64_t args[6];
};

struct learn_record {
	uint32_t magic;
	uint8_t kind;		/* enum learn_kind */
	uint8_t comm_len;	/* at most LEARN_COMM_MAX */
	uint16_t path_len;	/* 1 to LEARN_PATH_MAX - 1 */
	char comm[LEARN_COMM_MAX];
	char path[LEARN_PATH_MAX];	/* only path_len bytes are sent */
};

#define LEARN_RECORD_HEAD offsetof(struct learn_record, path)

/* The observer is done with request SEQ. */
struct learn_ack {
	uint32_t magic;
	uint32_t seq;
};

/* A record checked: KIND, COMM (NUL-terminated, only [A-Za-z0-9._+-],
 * others '?'), PATH (NUL-terminated). */
struct learn_event {
	enum learn_kind kind;
	char comm[LEARN_COMM_MAX + 1];
	char path[LEARN_PATH_MAX];
};

/* Is PATH (LEN bytes, no NUL needed) a path the supervisor takes: absolute,
 * shorter than LEARN_PATH_MAX, printable ASCII or UTF-8 bytes without
 * control characters, no empty, "." or ".." component, no trailing '/'
 * (but "/")? */
bool learn_path_valid(const char *path, size_t len);

/* The LEN bytes BUF received as one message, checked; true and *OUT when
 * they are one whole, valid record. */
bool learn_record_check(const void *buf, size_t len, struct learn_event *out);

/* Fill REC for KIND, COMM and PATH; the bytes to send, or 0 when PATH is
 * too long. */
size_t learn_record_make(struct learn_record *rec, enum learn_kind kind, const char *comm,
			 const char *path);

/* COMM with every byte outside [A-Za-z0-9._+-] made '?', into OUT
 * (LEARN_COMM_MAX + 1 bytes). */
void learn_comm_clean(const char *comm, size_t len, char *out);

/* The last pid of the "NSpid:" line of the text STATUS (a
 * /proc/PID/status, NUL-terminated): the pid in the process's own pid
 * namespace; 0 when there is none. */
pid_t learn_nspid_last(const char *status);

/* "." and ".." components and repeated slashes of the absolute PATH
 * resolved by name, in place (the observer's paths, before they are sent). */
void learn_path_normalize(char *path);

#endif
