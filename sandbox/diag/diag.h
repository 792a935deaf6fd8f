/* diag/: --doctor (what this machine allows, and why a launch would fail) and
 * --explain (the plan as hutch would carry it out), for main.
 *
 * The folder's public header: files outside diag/ include this one only. */
#ifndef HUTCH_DIAG_PUBLIC_H
#define HUTCH_DIAG_PUBLIC_H

#include "doctor.h"
#include "explain.h"

#endif
