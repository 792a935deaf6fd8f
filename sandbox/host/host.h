/* host/: what this host refuses and why: user namespaces
 * (userns_probe.c) and the mount calls a sandbox inside needs (nested.c).
 *
 * The folder's public header: files outside host/ include this one only. */
#ifndef HUTCH_HOST_PUBLIC_H
#define HUTCH_HOST_PUBLIC_H

#include "nested.h"
#include "userns_probe.h"

#endif
