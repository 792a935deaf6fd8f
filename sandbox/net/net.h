/* net/: the network by allow-list and COMMAND's brokered calls: the --allow-net
 * proxy (netproxy*.c, DNS, HTTP CONNECT), name resolution, grants, the
 * connect broker, and the seccomp notification listener that writes
 * --report (report.c), which the proxy's events go to as well.
 *
 * The folder's public header: files outside net/ include this one only. */
#ifndef HUTCH_NET_PUBLIC_H
#define HUTCH_NET_PUBLIC_H

#include "netproxy.h"
#include "netresolve.h"
#include "report.h"

#endif
