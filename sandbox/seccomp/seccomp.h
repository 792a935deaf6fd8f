/* seccomp/: the seccomp policy: its grammar (seccomp_policy.c), decisions
 * (seccomp_decide.c), the BPF programs (seccomp_build.c), the shipped
 * policies' prebuilt programs (builtin_filters.c), and loading it.
 *
 * The folder's public header: files outside seccomp/ include this one only. */
#ifndef HUTCH_SECCOMP_PUBLIC_H
#define HUTCH_SECCOMP_PUBLIC_H

#include "policy.h"
#include "seccomp_policy.h"

#endif
