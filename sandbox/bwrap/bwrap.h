/* bwrap/: bubblewrap's helper protocol: the fds a caller passes (--sync-fd,
 * --block-fd, --userns-block-fd, --lock-file, --seccomp, --userns...),
 * prepared by the supervisor, carried out by pid 1 and COMMAND.
 *
 * The folder's public header: files outside bwrap/ include this one only. */
#ifndef HUTCH_BWRAP_PUBLIC_H
#define HUTCH_BWRAP_PUBLIC_H

#include "protocol.h"

#endif
