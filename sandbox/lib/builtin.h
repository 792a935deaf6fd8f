/* Files shipped inside the hutch binary: profiles, seccomp policies and
 * the static init image, embedded at build time so that an uninstalled
 * or relocated hutch needs no file from disk. */
#ifndef HUTCH_BUILTIN_H
#define HUTCH_BUILTIN_H

#include <stddef.h>

/* KIND is "profiles" or "seccomp"; returns the text of the shipped file
 * NAME and its length, or NULL when there is none. */
const char *builtin_file(const char *kind, const char *name, size_t *len);

/* A copy of the program (enum seccomp_variant VARIANT) that libseccomp
 * built from the shipped policy POLICY with hutch: *PROG (malloc'd, or
 * NULL when the variant needs no program) of *N instructions.  -1 when
 * there is none. */
struct sock_filter;
int builtin_filter_copy(const char *policy, int variant, struct sock_filter **prog,
			size_t *n);

/* The static init program (helpers/hutch-init). */
const unsigned char *builtin_init_image(size_t *len);

#endif
