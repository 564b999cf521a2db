/* Making a plan at the edge: the problem, the resources every rank agrees on (one
 * collective), the pure planner (compute/plan.c), and its refusal printed once; and the plan
 * printed for people. */
#include <errno.h>
#include <stdio.h>
#include "compute/plan.h"
#include "compute/layers.h"
#include "common/precision.h"
#include "runtime/env.h"

/* "STARPU_LIMIT_CPU_MEM=8192 MiB" when bytes are what StarPU's variable var gives, else "":
 * the plan prints bytes in decimal units (GB), StarPU reads these variables in MiB, so a
 * figure that comes from one names it with its own unit (8192 MiB prints as 8.6 GB). */
static const char *from_limit(enum sg_env_var var, double bytes, char *text, size_t len)
{
	long long mib = (long long)sg_env_int(var);
	text[0] = '\0';
	if (mib > 0 && bytes == (double)mib * 1048576.0)
		snprintf(text, len, "%s=%lld MiB", sg_env_name(var), mib);
	return text;
}

int sg_plan_make(struct starpu_gemm_plan *plan, const struct sg_problem *pb,
                 const struct starpu_gemm_opts *opts)
{
	struct sg_resources res;
	sg_resources_agree(&res, pb, opts);
	char why[512] = "", limit[64] = "";
	int ret = sg_plan_compute(plan, pb, &res, opts, why, sizeof(why));
	/* Every rank planned from the same agreed inputs and got the same verdict. A memory
	 * refusal states the host memory per rank, which may be the user's STARPU_LIMIT_CPU_MEM. */
	if (ret == -ENOMEM)
		from_limit(SG_ENV_LIMIT_CPU_MEM, (double)res.host_mem, limit, sizeof(limit));
	if (ret && pb->rank == 0)
		fprintf(stderr, "starpu_gemm: %s%s%s%s\n", why,
		        *limit ? " (host memory per rank: " : "", limit, *limit ? ")" : "");
	return ret;
}

int starpu_gemm_plan_make(struct starpu_gemm_plan *plan, char transA, char transB,
                          const struct starpu_gemm_desc *A, const struct starpu_gemm_desc *B,
                          const struct starpu_gemm_desc *C, const struct starpu_gemm_opts *opts)
{
	struct sg_problem pb;
	int ret = sg_problem_make(&pb, transA, transB, A, B, C, opts ? opts->math : 0);
	return ret ? ret : sg_plan_make(plan, &pb, opts);
}

int starpu_gemm_plan_sizes(struct starpu_gemm_plan *plan, char prec, char transA, char transB,
                           int64_t M, int64_t N, int64_t K, int tile,
                           const struct starpu_gemm_dist *dist, MPI_Comm comm,
                           const struct starpu_gemm_opts *opts)
{
	struct sg_problem pb;
	int ret = sg_problem_of_sizes(&pb, prec, transA, transB, M, N, K, tile, dist, comm,
	                              opts ? opts->math : 0);
	return ret ? ret : sg_plan_make(plan, &pb, opts);
}

void starpu_gemm_plan_print(FILE *out, const struct starpu_gemm_plan *pl)
{
	fprintf(out, "plan: tiles %dx%dx%d (t=%d) on a %dx%d grid", pl->Mt, pl->Nt, pl->Kt, pl->tile,
	        pl->P, pl->Q);
	if (pl->G > 0)
		fprintf(out, ", %d GPU(s) per rank", pl->G);
	if (pl->G > 1)
		fprintf(out, pl->static_gpu ? " as a %dx%d grid over its C tiles%s" : " (dmdas picks "
		        "each task's)", pl->gpu_rows, pl->gpu_cols, pl->gpu_peers ? ", relaying A and "
		        "B tiles between them" : "");
	fputc('\n', out);
	const struct sg_precision *p = sg_precision(pl->prec);
	if (p && p->letter != p->c_letter) /* the mixed precisions: two tile sizes */
		fprintf(out, "plan: %cgemm (%s): A and B tiles %.1f MB, C tiles %.1f MB\n",
		        p->letter, p->name, pl->ab_tile_bytes / 1e6, pl->c_tile_bytes / 1e6);
	fprintf(out, "plan: b=%d c=%d d=%d lookahead=%d -> X=%d Y=%d Z=%d, regime %s%s\n",
	        pl->b, pl->c, pl->d, pl->lookahead, pl->X, pl->Y, pl->Z, pl->regime,
	        pl->throttled ? "" : " (throttle off: every task submitted at once)");
	if (sg_layers(pl) > 1)
		fprintf(out, "plan: %d layers (communication-avoiding): the grid as %dx%d layers of "
		        "%dx%d ranks, layer k mod %d computing partial C tiles that C's owners add; "
		        "per rank %.3f GB of partials among the MPI bytes\n", sg_layers(pl),
		        pl->layer_rows, pl->layer_cols, sg_layer_P(pl), sg_layer_Q(pl), sg_layers(pl),
		        pl->partial_bytes / 1e9);
	/* Without GPUs, no word of them (bench/rss.sh reads the host figure either way). */
	char gpu_limit[64] = "", host_limit[64] = "", text[64];
	if (*from_limit(SG_ENV_LIMIT_CUDA_MEM, (double)pl->gpu_mem, text, sizeof(text)))
		snprintf(gpu_limit, sizeof(gpu_limit), " (%s)", text);
	if (*from_limit(SG_ENV_LIMIT_CPU_MEM, (double)pl->host_mem, text, sizeof(text)))
		snprintf(host_limit, sizeof(host_limit), " (%s)", text);
	if (pl->G > 0)
		fprintf(out, "plan: sized for %.1f GB per GPU%s, %.1f GB host per rank%s\n",
		        pl->gpu_mem / 1e9, gpu_limit, pl->host_mem / 1e9, host_limit);
	else
		fprintf(out, "plan: sized for %.1f GB host per rank%s\n", pl->host_mem / 1e9,
		        host_limit);
	if (pl->c_home)
		fprintf(out, "plan: C stays in host memory: the GEMM tasks accumulate alpha*op(A)*op(B) in "
		        "scratch tiles, a CPU worker adds beta*C\n");
	if (pl->c_spread)
		fprintf(out, "plan: C's loads spread over a block's %d chunks: the updates before a "
		        "tile's load go to a scratch tile, added to C on its GPU\n", pl->Z);
	if (pl->G > 0)
		fprintf(out, "plan: peak tiles per GPU %.0f, remote A/B tiles per rank <= %.0f\n",
		        pl->tiles_per_gpu, pl->remote_tiles_per_rank);
	else
		fprintf(out, "plan: remote A/B tiles per rank <= %.0f\n", pl->remote_tiles_per_rank);
	fprintf(out, "plan: host memory per rank beyond its own tiles <= %.3f GB: %.0f tile "
	        "handles (%.1f kB each, %.1f with StarPU-MPI's entry), at most %.0f tasks in flight "
	        "(%.1f kB each)%s\n", pl->host_bytes / 1e9, pl->handles, SG_HANDLE_HOST_BYTES / 1e3,
	        (SG_HANDLE_HOST_BYTES + SG_MPI_ENTRY_HOST_BYTES) / 1e3, pl->tasks_in_flight,
	        SG_TASK_HOST_BYTES / 1e3, pl->P * pl->Q > 1 ? ", the remote tiles" : "");
	fprintf(out, "plan: predicted per rank: ");
	if (pl->G > 0)
		fprintf(out, "host->GPU %.3f GB, GPU->host %.3f GB, %s%.3f GB, ",
		        pl->host_to_gpu_bytes / 1e9, pl->gpu_to_host_bytes / 1e9,
		        pl->gpu_peers ? "GPU->GPU (relayed A and B tiles) " : "GPU->GPU ",
		        pl->gpu_to_gpu_bytes / 1e9);
	fprintf(out, "MPI received %.3f GB (from other nodes), node peers' tiles read in place "
	        "%.3f GB\n", pl->mpi_recv_bytes / 1e9, pl->node_read_bytes / 1e9);
	if (pl->mpi_lower_bytes > 0)
		fprintf(out, "plan: between nodes, any schedule moves at least %.3f GB per rank (I/O "
		        "lower bound, memory-independent): this one %.2f x\n",
		        pl->mpi_lower_bytes / 1e9, pl->mpi_recv_bytes / pl->mpi_lower_bytes);
	if (pl->G > 0) /* what bench/tensor.sh divides by the measured rates */
		fprintf(out, "plan: roofline per rank = max(%.4g TFLOP / device rate, %.3f GB / "
		        "host->GPU rate, %.3f GB / GPU->host rate, %.3f GB / MPI rate)\n",
		        pl->flops / (pl->P * pl->Q) / 1e12, pl->host_to_gpu_bytes / 1e9,
		        pl->gpu_to_host_bytes / 1e9, pl->mpi_recv_bytes / 1e9);
	if (pl->mpi_rate > 0 && pl->mpi_recv_bytes > 0)
		fprintf(out, "plan: network term of this rank %.6g s: %.6g GB from other nodes at %.6g "
		        "GB/s (STARPU_GEMM_MPI_GBPS)\n", pl->mpi_recv_bytes / pl->mpi_rate,
		        pl->mpi_recv_bytes / 1e9, pl->mpi_rate / 1e9);
}
