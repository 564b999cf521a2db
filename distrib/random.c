/* Deterministic random matrices: element (row, col) is a hash of (seed, row, col), so any rank
 * (and any reference) can regenerate any element, whatever the tiling and distribution. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include "distrib/desc.h"
#include "common/errors.h"


/* The hash chain starts per column, then takes the row: a column of a tile costs one mix64
 * to start and one (two for complex) per element. */
static inline uint64_t column_hash(uint64_t seed, int64_t col)
{
	return sg_mix64(sg_mix64(seed + SG_GOLDEN) + (uint64_t)col);
}

/* Uniform in [-0.5, 0.5) with all the mantissa bits of the type, and exactly representable in
 * it: a double rounded to float could reach +0.5. */
static inline void store_part(int single, uint64_t bits, void *dst, int64_t part)
{
	/* Through int64_t: the shifted bits fit, and signed conversion is one instruction. */
	if (single)
		((float *)dst)[part] = (float)(int64_t)(bits >> 40) * 0x1p-24f - 0.5f;
	else
		((double *)dst)[part] = (double)(int64_t)(bits >> 11) * 0x1p-53 - 0.5;
}

static inline __attribute__((always_inline)) void
store_element(int single, int is_complex, uint64_t colhash, int64_t row, void *dst, int64_t index)
{
	uint64_t h = sg_mix64(colhash + (uint64_t)row);
	if (is_complex) {
		store_part(single, h, dst, 2 * index);
		store_part(single, sg_mix64(h + SG_GOLDEN), dst, 2 * index + 1);
	} else {
		store_part(single, h, dst, index);
	}
}

/* One column of a block; always inlined with constant (single, is_complex), so each of the
 * four precisions gets its own branch-free loop from this one source. */
static inline __attribute__((always_inline)) void
store_column(int single, int is_complex, uint64_t colhash, int64_t row0, int rows, void *dst,
             int64_t offset)
{
	for (int r = 0; r < rows; r++)
		store_element(single, is_complex, colhash, row0 + r, dst, offset + r);
}

/* bfloat16 and half: the float element rounded to nearest (the float's 24 bits of [-0.5,
 * 0.5) round to a value the type holds; half's smallest come out subnormal, as they should). */
static void store_column_16(enum sg_format format, uint64_t colhash, int64_t row0, int rows,
                            uint16_t *dst)
{
	for (int r = 0; r < rows; r++) {
		float v;
		store_element(1, 0, colhash, row0 + r, &v, 0);
		dst[r] = format == SG_BF16 ? sg_float_to_bf16(v) : sg_float_to_half(v);
	}
}

void sg_random_block(const struct sg_precision *p, uint64_t seed, int64_t row0, int64_t col0,
                     int rows, int cols, void *dst, int64_t ld)
{
	if (p->format == SG_BF16 || p->format == SG_F16) {
		for (int c = 0; c < cols; c++)
			store_column_16(p->format, column_hash(seed, col0 + c), row0, rows,
			                (uint16_t *)dst + (size_t)c * (size_t)ld);
		return;
	}
	int single = p->elemsize == (p->is_complex ? 2 : 1) * sizeof(float);
	for (int c = 0; c < cols; c++) {
		uint64_t colhash = column_hash(seed, col0 + c);
		int64_t offset = (int64_t)c * ld;
		if (p->is_complex && single)
			store_column(1, 1, colhash, row0, rows, dst, offset);
		else if (p->is_complex)
			store_column(0, 1, colhash, row0, rows, dst, offset);
		else if (single)
			store_column(1, 0, colhash, row0, rows, dst, offset);
		else
			store_column(0, 0, colhash, row0, rows, dst, offset);
	}
}

void starpu_gemm_random_element(char prec, uint64_t seed, int64_t row, int64_t col, void *value)
{
	const struct sg_precision *p = sg_precision(prec);
	if (p && value)
		sg_random_block(p, seed, row, col, 1, 1, value, 1);
}

/* Filling is the driver's main cost outside the timed GEMM (25 GB of tiles at n=32768, 4.5
 * GB/s on one core): the owned tiles are shared out among threads, one per core this process
 * may run on, while StarPU's workers wait. */
struct fill_job {
	struct starpu_gemm_desc *desc;
	uint64_t seed;
	int64_t *tiles; /* indices of the owned tiles */
	int64_t count;
	int threads, id;
};

static void *fill_tiles(void *arg)
{
	const struct fill_job *job = arg;
	const struct starpu_gemm_desc *desc = job->desc;
	for (int64_t n = job->id; n < job->count; n += job->threads) {
		int64_t t = job->tiles[n];
		int i, j, rows, cols;
		sg_desc_tile_shape(desc, t, &i, &j, &rows, &cols);
		sg_random_block(desc->p, job->seed, (int64_t)i * desc->tile, (int64_t)j * desc->tile,
		                rows, cols, desc->tiles[t], desc->lds[t]);
	}
	return NULL;
}

int starpu_gemm_desc_fill_random(struct starpu_gemm_desc *desc, uint64_t seed)
{
	if (!desc)
		return -EINVAL;
	int64_t total = (int64_t)desc->mt * desc->nt, count = 0;
	int64_t *owned = malloc((size_t)(total > 0 ? total : 1) * sizeof(*owned));
	if (!owned)
		return -ENOMEM;
	SG_DESC_FOR_LOCAL(desc, t) {
		/* W: waits for the tasks still using the tile, and invalidates copies on GPUs. */
		SG_STARPU_CHECK(starpu_data_acquire(desc->handles[t], STARPU_W));
		owned[count++] = t;
	}
	int64_t to_fill = count;
#ifdef STARPU_SIMGRID
	/* Simulation computes no result: the W acquire (copies on GPUs invalidated, as after a
	 * real fill) is all StarPU sees of a fill, and writing the folded tiles would only take
	 * real time. */
	to_fill = 0;
#endif
	cpu_set_t cores;
	int threads = sched_getaffinity(0, sizeof(cores), &cores) == 0 ? CPU_COUNT(&cores) : 1;
	threads = threads < 1 ? 1 : threads > 64 ? 64 : threads;
	if (threads > to_fill)
		threads = to_fill > 0 ? (int)to_fill : 1;
	struct fill_job jobs[64];
	pthread_t ids[64];
	for (int id = 0; id < threads; id++)
		jobs[id] = (struct fill_job){ desc, seed, owned, to_fill, threads, id };
	int started = 0; /* threads 1..started run; the shares of any that failed to start are
	                  * filled by this one below */
	while (started + 1 < threads &&
	       pthread_create(&ids[started + 1], NULL, fill_tiles, &jobs[started + 1]) == 0)
		started++;
	fill_tiles(&jobs[0]);
	for (int id = 1; id <= started; id++)
		pthread_join(ids[id], NULL);
	for (int id = started + 1; id < threads; id++)
		fill_tiles(&jobs[id]);
	for (int64_t n = 0; n < count; n++)
		starpu_data_release(desc->handles[owned[n]]);
	free(owned);
	return 0;
}
