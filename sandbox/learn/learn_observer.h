/* --learn's observer in the sandbox (learn_observer.c). */
#ifndef HUTCH_LEARN_OBSERVER_H
#define HUTCH_LEARN_OBSERVER_H

#include <stdbool.h>

/* Does the observer read the path of call NR (the supervisor forwards
 * only those)? */
bool learn_observer_knows(long nr);

/* The observer's loop: requests from IN, records to OUT, until IN ends.
 * It makes only calls every shipped policy allows (read, write, openat
 * read-only, pread64, readlink, lstat, access). */
void learn_observer_run(int in, int out) __attribute__((noreturn));

#endif
