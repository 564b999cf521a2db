/* One small set of macros through which every StarPU, MPI, CUDA and cuBLAS call is checked.
 * Each failure names the call, the file and line, and what it was working on; the *_FATAL
 * forms abort the whole MPI job, since a rank that stops alone leaves the others hanging. */
#ifndef SG_ERRORS_H
#define SG_ERRORS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

void sg_fatal(const char *file, int line, const char *call, const char *what, const char *context)
	__attribute__((noreturn));

/* Return a negative errno value from the enclosing function when a StarPU call fails. */
#define SG_STARPU_CHECK(call)                                                                 \
	do {                                                                                  \
		int sg_ret_ = (call);                                                         \
		if (sg_ret_ < 0 && sg_ret_ != -ENODEV) {                                      \
			fprintf(stderr, "starpu_gemm: %s failed at %s:%d: %s\n", #call,       \
			        __FILE__, __LINE__, strerror(-sg_ret_));                      \
			return sg_ret_;                                                       \
		}                                                                             \
		if (sg_ret_ == -ENODEV)                                                       \
			return sg_ret_;                                                       \
	} while (0)

/* Abort the job when a StarPU call inside a place that cannot return an error fails. */
#define SG_STARPU_FATAL(call, context)                                                        \
	do {                                                                                  \
		int sg_ret_ = (call);                                                         \
		if (sg_ret_ < 0)                                                              \
			sg_fatal(__FILE__, __LINE__, #call, strerror(-sg_ret_), (context));   \
	} while (0)

#define SG_MPI_FATAL(call)                                                                    \
	do {                                                                                  \
		int sg_ret_ = (call);                                                         \
		if (sg_ret_ != MPI_SUCCESS) {                                                 \
			char sg_msg_[MPI_MAX_ERROR_STRING];                                   \
			int sg_len_ = 0;                                                      \
			MPI_Error_string(sg_ret_, sg_msg_, &sg_len_);                         \
			sg_fatal(__FILE__, __LINE__, #call, sg_msg_, NULL);                   \
		}                                                                             \
	} while (0)

#endif
