/* What must hold before StarPU starts, checked in one place for the driver and the doors:
 * StarPU aborts the process (assertion, SIGABRT, a backtrace) on a malformed STARPU_*
 * variable and on an unwritable or truncated calibration directory, and silently falls back
 * on an unknown scheduler. Here each of these becomes one sentence a user can act on, said
 * before anything is started, or a repair. */
#ifndef SG_PREFLIGHT_H
#define SG_PREFLIGHT_H

#include <stddef.h>
#include "runtime/env.h" /* sg_env_check, sg_printable */

/* StarPU's calibration directory ($STARPU_PERF_MODEL_DIR, else .starpu/sampling under
 * $XDG_CACHE_HOME, $STARPU_HOME or $HOME, StarPU's order): made if missing, probed for
 * writing (a full disk fails the probe), and rid of the zero-length files a run on a full disk
 * leaves behind (StarPU aborts on them at every later start). Where it cannot be used, a
 * private directory under $TMPDIR (or /tmp) replaces it for this process (STARPU_HOME and
 * STARPU_PERF_MODEL_DIR are set; it is removed at exit). Returns 0 with notice empty, or 0
 * with one line in notice saying what was repaired or replaced, or -1 with one sentence in
 * err when no usable directory was found. Not thread-safe (it may change the environment):
 * call it before StarPU starts. */
int sg_starpu_home_prepare(char *notice, size_t noticelen, char *err, size_t errlen);

/* Both, in that order: what the driver and the doors call before starting StarPU. */
int sg_preflight(char *notice, size_t noticelen, char *err, size_t errlen);

#endif
