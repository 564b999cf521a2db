/* What the drop-in's calls keep for the next ones. Allocating a call's tiles costs page
 * faults (and pinning, on GPU nodes) for a copy of each rank's share of A, B and C, every call:
 * applications call p?gemm_ again and again with the same shapes, so the last call's
 * descriptors are kept for the next one, and the packing buffers for any next one, while
 * STARPU_GEMM_SCALAPACK_KEEP is not 0, at the price of that memory staying allocated between
 * calls. */
#include <string.h>
#include "doors/scalapack.h"
#include "common/errors.h"

static struct kept_descs {
	int valid;
	MPI_Comm comm;
	char prec;
	int tile, P, Q;
	int64_t shape[3][2];
	struct starpu_gemm_desc *desc[3];
} kept;

static struct sg_redist_scratch kept_scratch;

int sg_scalapack_scratch(struct sg_redist_scratch **scratch, const struct sg_redist *plans,
                         int nplans)
{
	*scratch = &kept_scratch;
	return sg_redist_scratch_reserve(&kept_scratch, plans, nplans, sg_scalapack_threads());
}

static void drop_descs(void)
{
	/* Destroying tiles sends nothing: no other rank needs to take part. */
	for (int x = 0; x < 3; x++)
		starpu_gemm_desc_destroy(kept.desc[x]);
	memset(&kept, 0, sizeof(kept));
}

void sg_scalapack_descs_drop(void)
{
	drop_descs();
	sg_redist_scratch_free(&kept_scratch);
}

static int kept_for(char prec, const int64_t shape[3][2], int tile, int P, int Q, MPI_Comm comm)
{
	return kept.valid && kept.comm == comm && kept.prec == prec && kept.tile == tile &&
	       kept.P == P && kept.Q == Q && memcmp(kept.shape, shape, sizeof(kept.shape)) == 0;
}

int sg_scalapack_descs(struct starpu_gemm_desc *desc[3], char prec, const int64_t shape[3][2],
                       int tile, int P, int Q, MPI_Comm comm)
{
	/* A rank may have made calls on other grids since: reuse only where all ranks can. */
	int mine = kept_for(prec, shape, tile, P, Q, comm), all = 0;
	SG_MPI_FATAL(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm));
	if (!all) {
		/* Every rank's tag allocator is empty again before the new descriptors take their
		 * tags, so the ranks agree on them. */
		drop_descs();
		struct starpu_gemm_dist dist = { .kind = STARPU_GEMM_DIST_2D_BLOCK_CYCLIC,
		                                 .P = P, .Q = Q };
		for (int x = 0; x < 3; x++) {
			int ret = starpu_gemm_desc_create(&kept.desc[x], prec, shape[x][0], shape[x][1],
			                                  tile, &dist, comm);
			if (ret) {
				drop_descs();
				return ret;
			}
		}
		kept = (struct kept_descs){ .valid = 1, .comm = comm, .prec = prec, .tile = tile,
		                            .P = P, .Q = Q, .desc = { kept.desc[0], kept.desc[1],
		                                                      kept.desc[2] } };
		memcpy(kept.shape, shape, sizeof(kept.shape));
	}
	memcpy(desc, kept.desc, sizeof(kept.desc));
	return 0;
}

void sg_scalapack_descs_done(int failed)
{
	if (failed || !sg_scalapack_keep())
		sg_scalapack_descs_drop();
}
