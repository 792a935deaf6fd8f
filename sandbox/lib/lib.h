/* lib/: helpers every folder uses: strings, numbers and files (util.c),
 * JSON output, processes and pidfds, host files opened safely, --timing
 * marks, the data built into the binary (profiles, the init), the
 * signal list, and hutch-fault's hooks (fault.h; fault.c, built into
 * hutch-fault only, is the one file here that knows the stages).
 *
 * The folder's public header: files outside lib/ include this one only. */
#ifndef HUTCH_LIB_PUBLIC_H
#define HUTCH_LIB_PUBLIC_H

#include "builtin.h"
#include "fault.h"
#include "hostfile.h"
#include "json.h"
#include "process.h"
#include "signal_list.h"
#include "timing.h"
#include "util.h"

#endif
