/* Copies whose target is read next by a GPU's DMA, another process or the caller, not by this
 * core: the doors' copies between the application's arrays and tiles (doors/stage.c,
 * doors/redistribute.c). They are bound by the node's memory (bench/notes-arrays.md, "Four
 * GPUs"), and a plain copy of a column (a few KiB: below the size where memcpy streams) reads
 * each line of its target before writing it, a third more traffic. On 2 cores, tiles of 4096
 * from an array of 16384: 13.5-14 GB/s with memcpy, 18.5-20 with these stores
 * (bench/results/copy-columns-20261127.*). Header-only: libstarpu_gemm_scalapack compiles
 * common/ into itself. */
#ifndef SG_STREAM_COPY_H
#define SG_STREAM_COPY_H

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define SG_STREAM_MIN_BYTES 256

/* memcpy with non-temporal stores where bytes >= SG_STREAM_MIN_BYTES. */
static inline void sg_stream_copy(void *dst_, const void *src_, size_t bytes)
{
	char *dst = dst_;
	const char *src = src_;
#ifdef __SSE2__
	if (bytes >= SG_STREAM_MIN_BYTES) {
		size_t head = (16 - ((uintptr_t)dst & 15)) & 15;
		memcpy(dst, src, head);
		dst += head;
		src += head;
		bytes -= head;
		size_t n = bytes / 16;
		for (size_t i = 0; i < n; i++)
			_mm_stream_si128((__m128i *)dst + i, _mm_loadu_si128((const __m128i *)src + i));
		dst += 16 * n;
		src += 16 * n;
		bytes -= 16 * n;
	}
#endif
	memcpy(dst, src, bytes);
}

/* Non-temporal stores are weakly ordered: fenced before what was copied is handed to another
 * thread or process (a flag, a release, a barrier). */
static inline void sg_stream_fence(void)
{
#ifdef __SSE2__
	_mm_sfence();
#endif
}

#endif
