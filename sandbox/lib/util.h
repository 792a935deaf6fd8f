/* Small helpers: allocation that cannot return NULL, and formatting. */
#ifndef HUTCH_UTIL_H
#define HUTCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>


void *xreallocarray(void *ptr, size_t n, size_t size);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* NAME's value in ENVP, or NULL. */
const char *env_value(char *const *envp, const char *name);
struct passwd;
/* The caller's line of /etc/passwd, or NULL.  Never NSS: a static glibc
 * (hutch's usual build, see Makefile) crashes loading an NSS module such
 * as libnss_systemd, and the environment names the user where it
 * matters; this only fills in for a caller run without HOME or USER. */
struct passwd *caller_passwd(void);
/* $HOME from ENVP, else the passwd entry's home directory, else "/". */
char *caller_home(char *const *envp);
/* Is PATH the directory DIR or inside it ("/" holds every path)? */
bool path_within(const char *path, const char *dir);
/* Parse a non-negative decimal integer no larger than MAX; -1 if not one. */
long long parse_uint(const char *s, long long max);
/* Parse seconds, with a fraction ("1.5"); -1 if not a number >= 0. */
double parse_seconds(const char *s);
/* A duration as timeout(1) takes it: seconds, or a number followed by
 * s, m, h or d; -1 when S is none. */
double parse_duration(const char *s);
/* An amount of bytes: "1024", "64K", "2M", "1G", "1T", or "unlimited"
 * (RLIM_INFINITY); 0, or -1 when S is none. */
int parse_amount(const char *s, unsigned long long *out);

/* Read at most LEN-1 bytes of NAME in DIR into BUF, NUL-terminated;
 * the count read, or -1. */
ssize_t read_file_at(int dir, const char *name, char *buf, size_t len);
/* Write TEXT to the existing file NAME in DIR; 0 or -1 with errno. */
int write_file_at(int dir, const char *name, const char *text);
/* All FD has to read, up to its end, NUL-terminated (free it), or NULL
 * with errno. */
char *read_text_fd(int fd);
/* The whole of the small file NAME in DIR, NUL-terminated (free it), or
 * NULL with errno. */
char *read_text_at(int dir, const char *name);

/* Send LEN bytes of DATA on the unix socket SOCK, with FD attached
 * (SCM_RIGHTS) unless it is -1; what sendmsg returns. */
ssize_t send_with_fd(int sock, const void *data, size_t len, int fd);
/* Receive a message of up to LEN bytes into DATA from SOCK, never
 * waiting; *FD is the first fd attached (close-on-exec), or -1, and any
 * other attached fd is closed.  What recvmsg returns. */
ssize_t recv_with_fd(int sock, void *data, size_t len, int *fd);

#endif
