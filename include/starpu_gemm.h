/* starpu-gemm: distributed dense C = alpha*op(A)*op(B) + beta*C on StarPU and StarPU-MPI.
 *
 * Everything a user may call is declared here. Conventions:
 *   - prec is one of 's','d','c','z' (float, double, float complex, double complex), or
 *     'b', 'h' for the mixed precisions of tensor cores: A and B of bfloat16 ('b') or IEEE
 *     half ('h'), each element a uint16_t holding its bits, C float, products accumulated
 *     in float. A product of 'b' takes A and B descriptors of 'b' and a C of 's'
 *     (starpu_gemm_prec_of_c). TF32 is a math mode of 's' products (struct
 *     starpu_gemm_opts.math); its tile codelet has the letter 't' (float A, B and C);
 *   - trans is one of 'N','T','C' (C = conjugate transpose; same as T for real precisions);
 *   - scalars (alpha, beta) are passed as pointers to a value of C's type (float for 'b',
 *     'h' and 't');
 *   - matrices and tiles are column-major;
 *   - functions returning int return 0 on success or a negative errno value.
 *
 * Three levels, as in Chameleon: starpu_gemm_gemm() on host arrays (BLAS argument order, no
 * MPI, StarPU started on first use); starpu_gemm_pgemm() on descriptors, collective over their
 * communicator; starpu_gemm_pgemm_submit() + starpu_gemm_wait(), which only submit, so several
 * products and the caller's own tasks overlap. For the descriptor levels the caller
 * initialises StarPU and StarPU-MPI (starpu_mpi_init_conf) itself, and calls
 * starpu_cublas_init() when it uses CUDA workers; process-local descriptors
 * (comm = STARPU_GEMM_COMM_LOCAL) need StarPU only, never MPI. */
#ifndef STARPU_GEMM_H
#define STARPU_GEMM_H

#include <stdint.h>
#include <stdio.h>
#include <starpu.h>
#include <starpu_mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STARPU_GEMM_VERSION "0.1.0"

/* ------------------------------------------------------------------------------------------
 * Tile codelets (codelets/)
 * ------------------------------------------------------------------------------------------ */

/* Submit one tile GEMM task: C = alpha*op(A)*op(B) + beta*C on this process.
 * A, B, C are registered StarPU matrix handles (any leading dimension, ragged shapes allowed).
 * Returns 0, -EINVAL for bad arguments or mismatched tile shapes (nothing is submitted then),
 * -ENODEV when no worker can run the codelet. */
int starpu_gemm_tile_insert(char prec, char transA, char transB, const void *alpha,
                            starpu_data_handle_t A, starpu_data_handle_t B,
                            const void *beta, starpu_data_handle_t C);

/* The tile GEMM codelet of a precision, or 't' (float tiles through TF32 tensor cores on CUDA
 * workers, a plain sgemm on CPU workers); NULL for an unknown one. For users of
 * starpu_task_insert / starpu_mpi_task_insert. Its buffers are (STARPU_R A, STARPU_R B,
 * STARPU_RW C) and its argument is packed as four STARPU_VALUEs, in this order:
 *
 *   char transA = 'N', transB = 'T'; double alpha = 2.0, beta = 1.0;   // prec 'd'
 *   starpu_mpi_task_insert(MPI_COMM_WORLD, starpu_gemm_codelet('d'),
 *       STARPU_VALUE, &transA, sizeof(char), STARPU_VALUE, &transB, sizeof(char),
 *       STARPU_VALUE, &alpha, sizeof(double), STARPU_VALUE, &beta, sizeof(double),
 *       STARPU_R, A, STARPU_R, B, STARPU_RW, C,
 *       STARPU_FLOPS, starpu_gemm_tile_flops('d', m, n, k), 0);
 *
 * alpha and beta have C's type (float, double, float complex, double complex; float for 'b',
 * 'h', 't'); A and B tiles have elements of starpu_gemm_elemsize(prec) bytes, C tiles of
 * starpu_gemm_elemsize(starpu_gemm_prec_of_c(prec)). 'b' and 'h' run cublasGemmEx with
 * CUBLAS_COMPUTE_32F on CUDA workers, and on CPU workers widen A and B to float (exact) for
 * an sgemm, or use OpenBLAS's cblas_sbgemm when it has one.
 * Its performance model is history-based, named "starpu_gemm_<prec>gemm" (e.g.
 * starpu_gemm_dgemm, starpu_gemm_bgemm, starpu_gemm_tgemm), with a footprint over
 * (m, n, k, transA, transB). */
struct starpu_codelet *starpu_gemm_codelet(char prec);

/* Floating-point operations of one m x n x k tile product (8mnk for complex, 2mnk for real). */
double starpu_gemm_tile_flops(char prec, int64_t m, int64_t n, int64_t k);

/* Bytes of one element of a matrix of prec (of A and B in a product of prec: 2 for 'b' and
 * 'h'); 0 for an unknown precision. */
size_t starpu_gemm_elemsize(char prec);
/* The precision letter normalised ('s','d','c','z','b','h','t'; either case accepted), 0 if
 * unknown. */
char starpu_gemm_prec_letter(char prec);
/* The precision of C, alpha and beta in a product of prec: 's' for 'b', 'h' and 't', prec
 * itself otherwise; 0 if unknown. */
char starpu_gemm_prec_of_c(char prec);
/* 1 for 'c' and 'z', 0 for 's' and 'd' (and unknown letters). */
int starpu_gemm_prec_is_complex(char prec);
/* *value = re + i im in the type of C, alpha and beta of a product of prec (im dropped for
 * real ones), e.g. to pass alpha and beta read as numbers. Nothing for an unknown prec. */
void starpu_gemm_scalar(char prec, double re, double im, void *value);
/* A transpose letter normalised: 'N', 'T' or 'C' (either case); 'C' becomes 'T' for real
 * precisions; 0 if invalid. */
char starpu_gemm_trans(char prec, char trans);
/* Bytes of host memory one of ranks_on_node processes of a node may use for tiles:
 * STARPU_LIMIT_CPU_MEM (MiB) when set, else MemAvailable / ranks_on_node; *source (may be
 * NULL) says which. The plan and the driver's up-front check read it here. */
double starpu_gemm_host_memory(int ranks_on_node, const char **source);

/* The library's defaults for starting StarPU on this node, as the driver and the doors start
 * it, for an application that starts StarPU itself: call it between starpu_conf_init and
 * starpu_init / starpu_mpi_init_conf. Each STARPU_* variable the user set wins.
 *   - scheduler: dmdas where this process sees a GPU, lws otherwise (STARPU_SCHED);
 *   - CPU workers (STARPU_NCPU): none beside GPUs; otherwise one per core of this process's
 *     share, less one for StarPU-MPI's thread (mpi != 0) on several ranks and several cores;
 *   - cores (STARPU_WORKERS_CPUID/COREID, STARPU_WORKERS_GETBIND=0): the processes of a node
 *     allowed the same CPUs (mpirun --bind-to none: all of them) split them into consecutive
 *     slices, in node-local rank order, and StarPU binds its workers and StarPU-MPI's thread
 *     within this process's slice (conf->workers_bindid), however the job was launched.
 * comm: the communicator of the job, collective over it (the node's processes are found with
 * MPI_Comm_split_type); the calling thread is then bound to the slice too, as the threads it
 * starts later will be. MPI_COMM_NULL: not collective, the launcher's variables (Open MPI,
 * MPICH, Slurm) give the node-local rank, only a process left unbound takes a slice, and the
 * calling thread is left as it is.
 * Returns 0. */
int starpu_gemm_conf_defaults(struct starpu_conf *conf, MPI_Comm comm, int mpi);

/* What a program needs of StarPU, for starpu_gemm_runtime_start. */
struct starpu_gemm_runtime {
	int mpi;             /* 1: StarPU-MPI on comm (starpu_mpi_init_conf; MPI initialised by
	                      * the caller, and finalised by it after the stop); 0: StarPU alone */
	MPI_Comm comm;       /* mpi: StarPU-MPI's communicator (MPI_COMM_WORLD, usually) */
	MPI_Comm together;   /* the processes that call this together (collective over it): the
	                      * environment's check and the start are agreed, so that all start or
	                      * none does, and the node's cores are split exactly
	                      * (starpu_gemm_conf_defaults); MPI_COMM_NULL: this process alone */
	int *argc;           /* mpi: passed to starpu_mpi_init_conf (may be NULL) */
	char ***argv;
};

/* Start StarPU the way the driver and the doors do: the STARPU_* and STARPU_GEMM_* variables
 * and StarPU's calibration directory checked first (StarPU aborts the process on a malformed
 * one; an unusable directory is replaced by a private one, said in notice), the library's
 * defaults (starpu_gemm_conf_defaults), StarPU or StarPU-MPI, at least one worker, and cuBLAS
 * on the CUDA workers. Returns 0 (notice may hold one line to show), or a negative errno with
 * one sentence in err and StarPU not running: -EINVAL (the environment), -ENODEV (no
 * worker), -EALREADY (StarPU runs already), or StarPU's own code. With together, every
 * process of it returns the same code. */
int starpu_gemm_runtime_start(const struct starpu_gemm_runtime *want, char *notice,
                              size_t noticelen, char *err, size_t errlen);
/* Stop what starpu_gemm_runtime_start started (cuBLAS, then StarPU or StarPU-MPI); nothing
 * when it started nothing. */
void starpu_gemm_runtime_stop(void);

/* The ranks of comm on this rank's node (MPI_Comm_split_type), the library's own: made once
 * per communicator (collective the first time), kept with comm, freed with it or at
 * MPI_Finalize: never free it. What node sharing (distrib/) and the plan's per-node memory
 * see; one rank per node under StarPU+SimGrid (MPI_COMM_SELF). */
MPI_Comm starpu_gemm_node_comm(MPI_Comm comm);

/* ------------------------------------------------------------------------------------------
 * Tiled, distributed matrices (distrib/)
 * ------------------------------------------------------------------------------------------ */

enum starpu_gemm_dist_kind {
	STARPU_GEMM_DIST_2D_BLOCK_CYCLIC = 0, /* tile (i,j) -> (i mod P)*Q + (j mod Q): the default */
	STARPU_GEMM_DIST_1D_ROW_CYCLIC,       /* tile (i,j) -> i mod (P*Q) */
	STARPU_GEMM_DIST_1D_COL_CYCLIC,       /* tile (i,j) -> j mod (P*Q) */
	STARPU_GEMM_DIST_USER                 /* tile (i,j) -> owner(i, j, owner_arg) */
};

/* Owner of tile (i,j): a rank in [0, nranks). Must give the same answer on every rank. */
typedef int (*starpu_gemm_owner_fn)(int i, int j, void *owner_arg);

struct starpu_gemm_dist {
	enum starpu_gemm_dist_kind kind;
	int P, Q;                   /* process grid, P*Q == size of the communicator */
	starpu_gemm_owner_fn owner; /* only for STARPU_GEMM_DIST_USER */
	void *owner_arg;
};

/* Owner of tile (i,j) under dist: what a descriptor with this distribution gives, before any
 * descriptor exists (to fill only one's own tiles of an array, say). */
int starpu_gemm_dist_owner(const struct starpu_gemm_dist *dist, int i, int j);

/* An m x n matrix of precision prec cut in tile x tile tiles (the last row and column of tiles
 * may be smaller). Opaque; built and queried with the functions below. */
struct starpu_gemm_desc;

/* prec: 's','d','c','z','b','h' (not 't': TF32 multiplies 's' matrices).
 * Collective over comm. Allocates the tiles this rank owns and registers them with StarPU-MPI;
 * another rank's tile is registered (with no home node) when this rank first asks for its
 * handle (starpu_gemm_desc_handle, or a product whose task here reads it), so memory stays
 * proportional to what this rank owns and uses. Where several ranks of comm share a node, their tiles
 * are allocated in shared memory (/dev/shm, one object per rank, unlinked once mapped; pinned
 * in every rank with GPUs) and each rank's tasks read its node peers' A and B tiles in place:
 * only ranks of different nodes exchange tiles through MPI (STARPU_GEMM_SHARE_NODE=0: every
 * rank its own node, as before). Where the node's shared memory cannot hold them, a notice
 * says so and the tiles are private. MPI tags come from starpu_mpi_tags_allocate(). Returns 0
 * or -EINVAL (bad sizes, grid not matching comm size, user owner returning a rank out of
 * range), -ENOMEM. */
int starpu_gemm_desc_create(struct starpu_gemm_desc **desc, char prec, int64_t m, int64_t n,
                            int tile, const struct starpu_gemm_dist *dist, MPI_Comm comm);
/* Process-local matrices: every tile lives in this process and is registered with StarPU
 * alone (no StarPU-MPI, no MPI call: MPI need not be initialised). Pass it as comm to any
 * descriptor constructor; dist is then ignored and may be NULL. */
#define STARPU_GEMM_COMM_LOCAL MPI_COMM_NULL

/* Descriptors over memory the caller owns (the two constructors below) keep exchanging tiles
 * through MPI between ranks of one node: a process's private memory cannot be read by
 * another, and mapping it again would need the caller to have allocated it shared. */
/* A descriptor over a column-major array the caller owns: element (r,c) of the m x n matrix is
 * at array[r + c*ld] (ld >= m), in the precision's type. Tiles are registered in place as
 * sub-blocks of it (nothing is copied); on several ranks each rank passes its own array of
 * the global layout, and only the tiles it owns are read or written (others may pass NULL if
 * they own none). A sub-matrix view of a larger array X with leading dimension ldx, rows
 * i0.. and columns j0.., is array = X + (i0 + j0*ldx)*elemsize, ld = ldx. The array must
 * outlive the descriptor; starpu_gemm_desc_destroy() leaves it holding the latest values.
 * Collective over comm (or local, see STARPU_GEMM_COMM_LOCAL). Returns 0 or -EINVAL (also
 * for ld above INT_MAX: StarPU registers 32 bits of it, the tile kernels take an int). */
int starpu_gemm_desc_create_lapack(struct starpu_gemm_desc **desc, char prec, int64_t m,
                                   int64_t n, int tile, void *array, int64_t ld,
                                   const struct starpu_gemm_dist *dist, MPI_Comm comm);

/* Address of tile (i,j) in the caller's memory and its leading dimension (>= the tile's
 * rows), in elements; called once per tile this rank owns, at creation. Chameleon's
 * Desc_Create_User: the tiles may be anywhere (tile layout, separate allocations...). */
typedef void *(*starpu_gemm_tile_addr_fn)(int i, int j, int64_t *ld, void *addr_arg);

/* A descriptor whose owned tiles are the caller's memory, located by addr. Collective (or
 * local). Returns 0 or -EINVAL (also when addr returns NULL, too small an ld or one above
 * INT_MAX). */
int starpu_gemm_desc_create_user(struct starpu_gemm_desc **desc, char prec, int64_t m,
                                 int64_t n, int tile, starpu_gemm_tile_addr_fn addr,
                                 void *addr_arg, const struct starpu_gemm_dist *dist,
                                 MPI_Comm comm);

/* Collective: waits for pending tasks on the tiles, unregisters them (tiles over caller
 * memory are written back there first), frees memory and tags. */
void starpu_gemm_desc_destroy(struct starpu_gemm_desc *desc);

char starpu_gemm_desc_prec(const struct starpu_gemm_desc *desc);
int64_t starpu_gemm_desc_rows(const struct starpu_gemm_desc *desc);
int64_t starpu_gemm_desc_cols(const struct starpu_gemm_desc *desc);
int starpu_gemm_desc_tile_size(const struct starpu_gemm_desc *desc);
int starpu_gemm_desc_tile_rows(const struct starpu_gemm_desc *desc); /* number of tile rows */
int starpu_gemm_desc_tile_cols(const struct starpu_gemm_desc *desc); /* number of tile cols */
const struct starpu_gemm_dist *starpu_gemm_desc_dist(const struct starpu_gemm_desc *desc);
MPI_Comm starpu_gemm_desc_comm(const struct starpu_gemm_desc *desc);
int starpu_gemm_desc_owner(const struct starpu_gemm_desc *desc, int i, int j);
/* Tile (i,j)'s StarPU handle, registered with StarPU-MPI here at the first call for a tile of
 * another rank: a rank that inserts a StarPU-MPI task naming the tile calls it first, as
 * every rank inserting the task does. NULL out of range. */
starpu_data_handle_t starpu_gemm_desc_handle(const struct starpu_gemm_desc *desc, int i, int j);
/* Tile (i,j)'s host memory where this process can address it: this rank's own tile, or a
 * node peer's that node sharing maps here (STARPU_GEMM_SHARE_NODE, the default for the
 * library's tiles); *ld (if not NULL) is its leading dimension in elements. NULL for a tile on
 * another node or out of range. Coherence is the caller's: write a peer's tile only while its
 * owner holds it in STARPU_W (starpu_data_acquire on its handle), read one while the owner
 * holds it in STARPU_R, and keep a node barrier between the holds and the copies, as the
 * ScaLAPACK drop-in's redistribution between the ranks of a node does; or fill tiles as the
 * product runs with starpu_gemm_opts.before_task (the drop-in's moves beside the product). */
void *starpu_gemm_desc_tile_in_reach(const struct starpu_gemm_desc *desc, int i, int j,
                                     int64_t *ld);
/* Elements in tile (i,j): rows, cols. */
void starpu_gemm_desc_tile_shape(const struct starpu_gemm_desc *desc, int i, int j,
                                 int *rows, int *cols);
/* Tiles this rank owns, and their bytes. */
int64_t starpu_gemm_desc_local_tiles(const struct starpu_gemm_desc *desc);
size_t starpu_gemm_desc_local_bytes(const struct starpu_gemm_desc *desc);

/* Deterministic random values in [-0.5, 0.5) (both parts for complex) that depend only on
 * (seed, global row, global column), never on the tiling or the distribution: any rank, and a
 * reference, can regenerate any element. Never zero-filled. 'b' and 'h': the float value
 * rounded to nearest, as uint16_t bits. */
void starpu_gemm_random_element(char prec, uint64_t seed, int64_t row, int64_t col, void *value);
/* Fill every owned tile with starpu_gemm_random_element(seed, ...). Waits for the tiles. */
int starpu_gemm_desc_fill_random(struct starpu_gemm_desc *desc, uint64_t seed);
/* Collective: copy the whole matrix to root's dst (column-major, leading dimension = rows). */
int starpu_gemm_desc_gather(struct starpu_gemm_desc *desc, void *dst, int root);

/* ------------------------------------------------------------------------------------------
 * The distributed GEMM (compute/): the paper's Algorithm 3, blocked + chunked with lookahead
 * ------------------------------------------------------------------------------------------ */

/* How 's' products multiply: as stored (the default: sgemm), or on tensor cores in TF32
 * (cuBLAS's CUBLAS_COMPUTE_32F_FAST_TF32: A and B rounded to 10 mantissa bits, float
 * accumulation; CPU workers run a plain sgemm). Other precisions take only the default. */
enum starpu_gemm_math { STARPU_GEMM_MATH_DEFAULT = 0, STARPU_GEMM_MATH_TF32 = 1 };

struct starpu_gemm_plan;

/* Caller's choices. Initialise with starpu_gemm_opts_init(): every field is then automatic
 * (0, or -1 for lookahead, whose 0 is a valid choice: no chunk in flight beyond the current). */
struct starpu_gemm_opts {
	int b, c, d;       /* local C block rows, block columns (in tiles), chunk depth in k */
	int lookahead;     /* chunks in flight beyond the current one (>= 0; -1 = automatic) */
	int no_throttle;   /* 1: submit every task at once (the un-chunked baseline) */
	int static_gpu;    /* how a rank's GPUs share its C tiles: 0 (default) automatic: as 1
	                    * with several GPUs; 1: each GPU owns its tiles, the GPUs dealt as
	                    * the most square grid over them (each reads a share of A's rows and
	                    * B's columns), and every task's tiles are prefetched to its GPU; 2:
	                    * dmdas picks each task's GPU */
	int gpu_peers;     /* where each GPU owns its C tiles (static_gpu), how a rank's GPUs
	                    * get the A and B tiles that several of them read: 0 (default)
	                    * automatic: as 1 for the tensor-core kernels (b, h, TF32), whose
	                    * GPUs outrun their host links, where StarPU's bus calibration gives
	                    * every pair of the rank's GPUs at least twice the host link's rate
	                    * (NVLink), else as 2; 1: one GPU of those that read a tile loads it from host memory
	                    * (they take turns along k) and the others copy it from that GPU, so
	                    * each host link carries a share of A and B; 2: each GPU loads from
	                    * host memory every tile it reads */
	int progress;      /* 1: rank 0 prints percent of tasks done, at most once a second */
	size_t host_mem;   /* bytes of host memory per rank for tiles (0: detect) */
	size_t gpu_mem;    /* bytes of memory per GPU (0: starpu_memory_get_total) */
	int tile;          /* starpu_gemm_gemm_ex only: tile size (0: starpu_gemm_default_tile,
	                    * or STARPU_GEMM_TILE when set) */
	int math;          /* enum starpu_gemm_math (-EINVAL where it does not apply) */
	int beta_zero;     /* plans from sizes only: 1 when the product's beta will be 0, whose
	                    * C tiles are written, not loaded to the GPUs (the products set it
	                    * themselves from their beta) */
	int c_home;        /* 1: keep C in host memory where beta != 0 and every rank has a CPU
	                    * worker: C tiles do not cross to the GPUs (but the last shell's),
	                    * which compute alpha*op(A)*op(B) into scratch tiles that the CPU
	                    * worker adds to beta*C; saves a third of a DGEMM's host->GPU bytes
	                    * (half of a BF16 one's). 0 (default): C is loaded onto the GPUs and
	                    * updated there. With GPUs, they run every GEMM task either way. */
	int c_spread;      /* when C's tiles are loaded onto the GPUs (C not at home, beta != 0,
	                    * the 2D schedule, a block of several chunks): 0 (default) automatic:
	                    * as 1 where the job has several GPUs (per rank or over its ranks)
	                    * whose shares of A, B and C stay on them (regime a), else as 2; 1:
	                    * spread over the block's chunks, 1/Z of its C tiles loaded in each
	                    * (the walk's last tiles in the first chunk), a tile's updates of
	                    * earlier chunks going to a scratch tile on its GPU, added to C once C
	                    * is there; 2: every C tile loaded by its update k = 0, all in its
	                    * block's first chunk. Either way each C tile crosses once each way.
	                    * Forced on CPU workers alone it only adds work (scratch tiles in
	                    * host memory and their adds) */
	const struct starpu_gemm_plan *plan; /* NULL (default): the product plans itself. Else
	                    * the plan to follow as it is (from starpu_gemm_plan_sizes or
	                    * starpu_gemm_plan_make with the same problem and beta_zero), never
	                    * made again: the product only checks that it was made for this
	                    * problem (-EINVAL otherwise), and then needs no collective to plan.
	                    * b, c, d, lookahead, host_mem, gpu_mem, no_throttle, c_home,
	                    * c_spread, static_gpu and gpu_peers are then the plan's; the other
	                    * fields still apply. */
	/* NULL (default), or called on the thread that submits the product's tasks, before
	 * each task GEMM(i, j, k) (C(i,j) += op(A)(i,k) op(B)(k,j), tile indices) in the order
	 * they are submitted, on every rank that holds a tile of A, B or C, for every task of
	 * the product, its own and the others': a caller that fills A's, B's or C's tiles while the product runs (the
	 * ScaLAPACK drop-in fills them from the application's arrays) returns once the task's
	 * tiles are filled, and no task reads them before. Tiles so filled must hold no stale
	 * copy elsewhere (a STARPU_W acquire and release of each first). The function must not
	 * call starpu_gemm, nor wait for the product's tasks. starpu_gemm_gemm_ex sets its own. */
	void (*before_task)(void *arg, int i, int j, int k);
	void *before_task_arg;
	int layers;        /* the communication-avoiding schedule (2.5D): 0 (default) automatic:
	                    * the layers that move the least, where they cut the MPI bytes per
	                    * rank by a sixth or more and the network (STARPU_GEMM_MPI_GBPS)
	                    * bounds the 2D plan's GPUs by far, one rank per node, else 1; 1: the
	                    * 2D schedule, each C tile updated by its owner; c > 1: the P x Q grid
	                    * as c layers of (P/pr) x (Q/qc) ranks (pr * qc = c, pr dividing P,
	                    * qc Q), layer k mod c computing C's updates of those k into partial
	                    * tiles that C's owner adds, so each rank reads 1/c of the k steps of c
	                    * times more C tiles. Not with before_task, nor where node peers share
	                    * their tiles */
};

void starpu_gemm_opts_init(struct starpu_gemm_opts *opts);

/* The tile size with GPUs (512 for CPU workers, whose rule starpu_gemm_tile_rule refines by
 * their count): with ncuda > 0 CUDA workers, 4096 when m, n and k each hold 8 such tiles (4 for single
 * precision), else 2048. */
int starpu_gemm_default_tile(int64_t m, int64_t n, int64_t k, int ncuda);
/* The same for precision prec: double and double complex as above; single precision,
 * single complex, bfloat16 and half take 4096 when m, n and k each hold 4 such tiles, and
 * bfloat16 and half ('b', 'h') 8192 when they hold 8 such tiles. */
int starpu_gemm_default_tile_prec(char prec, int64_t m, int64_t n, int64_t k, int ncuda);
/* The one tile rule the driver and the doors cut a product by: setting when > 0 (the caller's
 * -t, opts.tile, STARPU_GEMM_TILE...); else with ncuda (the fewest CUDA workers of any rank)
 * > 0 starpu_gemm_default_tile_prec(prec, ...); else, with cpu_workers (the CPU workers of all
 * the ranks) > 0, the largest of 2048, 1024 and 512 that deals every CPU worker two C tiles or
 * more evenly (a multiple of the workers, or eight each or more) with K two tiles or more,
 * else 512. Never larger than the largest of m, n and k (a tile larger than every dimension
 * holds the whole matrix: the same run). */
int starpu_gemm_tile_rule(char prec, int64_t m, int64_t n, int64_t k, int ncuda,
                          int cpu_workers, int setting);

/* What the planner chose and what it predicts (paper section 3.2, Equation 1). */
struct starpu_gemm_plan {
	int b, c, d, lookahead;  /* chosen values */
	int X, Y, Z;             /* blocks in the rows and columns of C, chunks per block */
	int Mt, Nt, Kt;          /* tiles of C rows, C columns, and of k */
	int P, Q, G;             /* process grid and GPUs per rank (CUDA workers' devices) */
	int tile;
	char regime[4];          /* Equation 1 case: "a", "b", "c1" or "c2" */
	int throttled;           /* 0 when opts.no_throttle */
	double tiles_per_gpu;    /* predicted peak tiles resident on one GPU */
	double remote_tiles_per_rank; /* bound on remote A/B tiles one rank holds at once */
	double host_to_gpu_bytes;     /* predicted per rank: A, B and C tiles loaded to GPUs */
	double gpu_to_host_bytes;     /* predicted per rank: C tiles written back */
	double mpi_recv_bytes;        /* predicted per rank: remote A and B tiles received */
	double handles;               /* tiles each rank registers (at most): the A tiles of its C
	                               * rows, the B tiles of its C columns, its C tiles, its own
	                               * (transposed operands, a user owner function), its node
	                               * peers' reach handles; one rank: every tile of A, B and C */
	double tasks_in_flight;       /* bound per rank on tile tasks submitted and not done */
	double host_bytes;            /* bound per rank on host memory beyond the tiles it owns:
	                               * StarPU's handles and tasks in flight, remote tiles */
	size_t gpu_mem, host_mem;     /* memory the plan was sized for (bytes) */
	char prec;                    /* the kernel: A's precision, 't' for 's' in TF32 */
	size_t ab_tile_bytes, c_tile_bytes; /* a full tile of A or B, of C */
	double flops;                 /* of the whole product. Its roofline on one GPU per rank:
	                               * max(flops / (P Q device rate), host_to_gpu_bytes / link
	                               * rate host->GPU, gpu_to_host_bytes / link rate GPU->host) */
	int c_home;                   /* 1: C stays in host memory (opts.c_home): only the last
	                               * shell's C tiles are loaded to a GPU, a CPU worker adds the
	                               * GPUs' alpha*op(A)*op(B) to beta*C */
	int beta_zero;                /* made for a product whose beta is 0 (opts.beta_zero) */
	double node_read_bytes;       /* predicted per rank: node peers' A and B tiles read in
	                               * place from their shared memory (mpi_recv_bytes: the rest,
	                               * received from other nodes) */
	int static_gpu;               /* each GPU owns its C tiles (opts.static_gpu) */
	int gpu_rows, gpu_cols;       /* the rank's GPUs as a grid over its C tiles (1 x G when
	                               * dmdas picks each task's GPU) */
	int gpu_peers;                /* A and B tiles that several GPUs read cross the host link
	                               * once, the other GPUs copying them from it
	                               * (opts.gpu_peers) */
	double gpu_to_gpu_bytes;      /* predicted per rank: A and B tiles copied between its
	                               * GPUs (host_to_gpu_bytes: what the host links carry) */
	double node_mapped_bytes;     /* node peers' A and B tiles this rank reads in place, each
	                               * once: resident in its memory too (VmHWM counts them),
	                               * though owned, and counted, by their peer */
	double mpi_lower_bytes;       /* the least any schedule moves between nodes, per rank:
	                               * the memory-independent I/O lower bound of the product on
	                               * its nodes (the node's ranks sharing it), in A's elements;
	                               * 0 on one node */
	double mpi_rate;              /* bytes/s a rank receives from other nodes at, as given
	                               * (STARPU_GEMM_MPI_GBPS, the grid's smallest); 0: unknown.
	                               * The network term: mpi_recv_bytes / mpi_rate */
	int layer_rows, layer_cols;   /* the schedule's layers (opts.layers): the grid's P x Q
	                               * ranks as layer_rows * layer_cols layers of
	                               * (P / layer_rows) x (Q / layer_cols); 1 x 1: 2D. Blocks
	                               * span b (P / layer_rows) x c (Q / layer_cols) tiles, and a
	                               * chunk's d k steps hold d / layers of each layer's */
	double partial_bytes;         /* predicted per rank, in mpi_recv_bytes: the partial C
	                               * tiles of other layers received for its C tiles */
	int c_spread;                 /* 1: C's loads spread over each block's chunks
	                               * (opts.c_spread), the updates before a tile's load
	                               * accumulated in a scratch tile on its GPU */
};

/* Collective over C's communicator: ranks agree on the memory sizes and GPU count (the
 * smallest wins) so that every rank walks the same blocks and chunks. Returns -EINVAL
 * for descriptors that do not conform (shapes, tiles, communicators) or forced values that do
 * not fit, -ENOMEM when one chunk cannot fit in the memory given. */
int starpu_gemm_plan_make(struct starpu_gemm_plan *plan, char transA, char transB,
                          const struct starpu_gemm_desc *A, const struct starpu_gemm_desc *B,
                          const struct starpu_gemm_desc *C, const struct starpu_gemm_opts *opts);
/* The same plan from sizes alone, before any descriptor exists: what starpu_gemm_plan_make
 * gives for descriptors of prec ('s','d','c','z','b','h': A's and B's; C's is
 * starpu_gemm_prec_of_c(prec)) holding op(A) M x K, op(B) K x N and C M x N, cut in tile x
 * tile tiles and distributed by dist over comm (or STARPU_GEMM_COMM_LOCAL). Nothing is
 * allocated or registered, so it costs the same at any size: plan first, refuse what does
 * not fit, then create the descriptors and pass the plan as opts.plan to the product, which
 * follows it as it is (planning again would read the host's memory less the matrices just
 * allocated, and could refuse tiny tiles the plan accepted: the driver does this). Set
 * opts.beta_zero to what the product's beta will be. StarPU must be running (the plan reads
 * its GPUs). Collective over comm. Returns 0, or -EINVAL (arguments a descriptor or the
 * product would refuse), -ENOMEM as starpu_gemm_plan_make. */
int starpu_gemm_plan_sizes(struct starpu_gemm_plan *plan, char prec, char transA, char transB,
                           int64_t M, int64_t N, int64_t K, int tile,
                           const struct starpu_gemm_dist *dist, MPI_Comm comm,
                           const struct starpu_gemm_opts *opts);
void starpu_gemm_plan_print(FILE *out, const struct starpu_gemm_plan *plan);

/* What a run measured on this rank. */
struct starpu_gemm_stats {
	int64_t tasks;                 /* GEMM tile tasks this rank executed */
	int64_t peak_remote_tiles;     /* most remote A/B tiles held in host memory at once */
	int64_t chunks;                /* chunks submitted */
	struct starpu_gemm_plan plan;  /* the plan the run followed */
	double pin_seconds;            /* starpu_gemm_gemm_ex: time spent pinning caller memory */
	/* This rank's timeline, seconds from submission: its first GEMM task done, half of
	 * them, the last, and its C back in host memory. Fill and drain show there: on a GPU
	 * the first task waits for its tiles to cross the link, and the last C tiles go home
	 * after the last task. */
	double first_task_s, half_tasks_s, last_task_s, c_home_s;
	/* The submission: tasks this rank inserted (those it runs: a rank that only sends a tile
	 * posts the send, every rank inserted every task once), the A and B tiles it posted to
	 * other nodes, and the wall-clock seconds spent on both (real time: under
	 * StarPU+SimGrid the runtime's CPU time is not simulated). Handles: the tiles this rank
	 * registered, its own and the others' it read (registered at first use). */
	int64_t tasks_inserted;
	double insert_seconds;
	int64_t tiles_sent;
	int64_t handles;
};

/* C = alpha*op(A)*op(B) + beta*C, collective over the descriptors' communicator. The rank that
 * owns C(i,j) runs its tasks; beta is applied once per C tile. Returns when every task is done
 * and C is back in host memory on its owners. opts and stats may be NULL. */
int starpu_gemm_pgemm(char transA, char transB, const void *alpha,
                      struct starpu_gemm_desc *A, struct starpu_gemm_desc *B,
                      const void *beta, struct starpu_gemm_desc *C,
                      const struct starpu_gemm_opts *opts, struct starpu_gemm_stats *stats);

/* A product submitted and not yet waited for. */
struct starpu_gemm_request;

/* Submit C = alpha*op(A)*op(B) + beta*C and return at once: the blocked, chunked order is
 * walked by this process's submission thread (one per process, requests in the order they
 * were submitted, so every rank submits the same sequence), while the caller goes on and may
 * submit its own StarPU tasks. alpha and beta are copied. Until starpu_gemm_wait() returns the
 * caller must not touch A, B and C other than through StarPU tasks submitted after this call
 * (StarPU's sequential consistency then orders them; with descriptors whose tiles node peers
 * read in place, not even that for A and B: their tasks are in other processes), and must
 * wait for every request before destroying its descriptors, shutting StarPU down or exiting
 * (the submission thread may still be inserting its tasks: StarPU asserts, or the exit
 * crashes). Collective over the
 * descriptors' communicator: every rank submits the same products in the same order. Returns
 * 0 and *req, or -EINVAL (non-conforming descriptors or options; nothing submitted),
 * -ENOMEM. */
int starpu_gemm_pgemm_submit(char transA, char transB, const void *alpha,
                             struct starpu_gemm_desc *A, struct starpu_gemm_desc *B,
                             const void *beta, struct starpu_gemm_desc *C,
                             const struct starpu_gemm_opts *opts,
                             struct starpu_gemm_request **req);

/* Wait until the request's tasks are done, C is back in host memory on its owners and this
 * rank's A and B tiles are sent wherever they were needed; frees req. Where node peers read
 * the tiles in place, collective over each node's ranks: every rank waits for the same
 * requests in the same order. Only this product's
 * tiles are flushed from StarPU-MPI's cache. stats may be NULL. Returns 0. */
int starpu_gemm_wait(struct starpu_gemm_request *req, struct starpu_gemm_stats *stats);

/* ------------------------------------------------------------------------------------------
 * One call on host arrays (doors/): C = alpha*op(A)*op(B) + beta*C, BLAS argument order
 * ------------------------------------------------------------------------------------------ */

/* Column-major arrays of the precision's type, op(A) m x k, op(B) k x n, C m x n, as BLAS
 * (prec 'b' or 'h': A and B arrays of uint16_t holding bfloat16 or half bits, C, alpha and
 * beta float; lda, ldb, ldc in elements of each; opts->math selects TF32 for 's')
 * ?gemm: transA/transB 'N','T','C' (any case), lda >= max(1, rows of A as stored), ... On this
 * process only, with every GPU and core of the node; no MPI needed. StarPU is started on the
 * first call (STARPU_* variables apply), kept, and shut down at exit. With beta = 0, C is not
 * read. m, n or k = 0 is a valid call (with k = 0 or alpha = 0, C = beta*C). With GPUs,
 * pageable operands of 256 MB and more are copied through a pool of pinned tiles kept across
 * calls (at most STARPU_GEMM_STAGE_MB MiB; past it the operands are pinned whole for the call
 * and unpinned before returning); STARPU_GEMM_PIN=stage|all|none forces one way; memory the
 * caller pinned is used as it is. Thread-safe: calls from several threads run one after the
 * other. Returns 0, or -EINVAL naming the first bad argument by its BLAS position (see
 * starpu_gemm_gemm_check), -ENODEV when StarPU cannot start (or was shut down at exit),
 * -ENOMEM when an operand whose leading dimension is above INT_MAX (always staged) does not
 * fit the staging pool. */
int starpu_gemm_gemm(char prec, char transA, char transB, int64_t m, int64_t n, int64_t k,
                     const void *alpha, const void *A, int64_t lda, const void *B,
                     int64_t ldb, const void *beta, void *C, int64_t ldc);

/* starpu_gemm_gemm with the caller's choices (opts: NULL, or as for starpu_gemm_pgemm, plus
 * opts->tile) and what the run did (stats, may be NULL: the plan it followed, its tasks, the
 * time spent pinning). Unlike starpu_gemm_pgemm, a plan in opts->plan made for another
 * product (other sizes, precision or beta_zero, or one of C's panels when the staging pool
 * holds C in panels) is not refused: the call plans its own with the given plan's b, c, d
 * and lookahead, and stats->plan says which it followed. */
int starpu_gemm_gemm_ex(char prec, char transA, char transB, int64_t m, int64_t n, int64_t k,
                        const void *alpha, const void *A, int64_t lda, const void *B,
                        int64_t ldb, const void *beta, void *C, int64_t ldc,
                        const struct starpu_gemm_opts *opts, struct starpu_gemm_stats *stats);

/* Whether starpu_gemm_gemm(_ex) on pageable arrays of these sizes runs its product with
 * beta = 0 and adds beta*C as it copies C's staged tiles back (STARPU_GEMM_STAGE_C): then the
 * product to plan for a starpu_gemm_gemm_ex of opts->plan is the one with opts.beta_zero = 1
 * (a plan made with beta_zero = 0 is followed as it is, C copied in). While StarPU runs; for
 * a C the caller pinned, C is not staged whatever this says. */
int starpu_gemm_gemm_adds_beta_back(char prec, int64_t m, int64_t n, int64_t k,
                                    const void *beta);

/* The one argument check of a BLAS-order GEMM: 0 when the arguments are valid, else the
 * position of the first bad one as the reference BLAS numbers it for xerbla (1 transA,
 * 2 transB, 3 m, 4 n, 5 k, 8 lda, 10 ldb, 13 ldc), or -1 for an unknown precision. */
int starpu_gemm_gemm_check(char prec, char transA, char transB, int64_t m, int64_t n,
                           int64_t k, int64_t lda, int64_t ldb, int64_t ldc);

/* ------------------------------------------------------------------------------------------
 * Verification (check/)
 * ------------------------------------------------------------------------------------------ */

/* Collective. C must hold alpha*op(A)*op(B) + beta*C0 where A, B, C0 were filled by
 * starpu_gemm_desc_fill_random with seedA, seedB, seedC0. Each rank regenerates the rows of
 * op(A) and columns of op(B) it needs and compares its own C tiles with a CBLAS reference;
 * samples > 0 checks that many random entries per rank (dot products) instead of all.
 * residual = ||C - Cref||_F / (||A||_F ||B||_F K eps + 2 eps ||(Cref, beta C0)||_F) (max
 * over ranks; the second term is C's final rounding, alpha s + beta c0); NaN or Inf in C
 * makes it +Inf and bad_row and bad_col (if non-NULL) name the first such entry (else -1).
 * Returns 0 or a negative errno. */
int starpu_gemm_check(char transA, char transB, const void *alpha,
                      const struct starpu_gemm_desc *A, uint64_t seedA,
                      const struct starpu_gemm_desc *B, uint64_t seedB,
                      const void *beta, const struct starpu_gemm_desc *C, uint64_t seedC0,
                      int64_t samples, double *residual, int64_t *bad_row, int64_t *bad_col);

/* starpu_gemm_check of a product run with opts.math = math. The reference is computed from
 * the same inputs as stored (bfloat16 and half ones exactly, in double), so what is left is
 * the product's own rounding: the residual's K eps becomes K eps + 2 input_eps, where eps is
 * C's unit roundoff (2^-24 for 'b', 'h' and TF32: float accumulation) and input_eps the
 * kernel's rounding of A and B (2^-10 for TF32, 0 otherwise); the denominator's
 * 2 eps sqrt(||Cref||_F^2 + ||beta C0||_F^2), C's own rounding to float, is
 * starpu_gemm_check's. */
int starpu_gemm_check_math(int math, char transA, char transB, const void *alpha,
                           const struct starpu_gemm_desc *A, uint64_t seedA,
                           const struct starpu_gemm_desc *B, uint64_t seedB,
                           const void *beta, const struct starpu_gemm_desc *C, uint64_t seedC0,
                           int64_t samples, double *residual, int64_t *bad_row,
                           int64_t *bad_col);
/* The host memory starpu_gemm_check_math allocates at most on this rank for these arguments,
 * beside the matrices (its reference tile and panels of op(A) and op(B) and the calling
 * thread's BLAS buffers, or its samples and dot products' buffers), in bytes: for a memory
 * bound that counts the check. 0 for arguments the check refuses. Not collective. */
double starpu_gemm_check_host_bytes(int math, char transA, char transB,
                                    const struct starpu_gemm_desc *A,
                                    const struct starpu_gemm_desc *B,
                                    const struct starpu_gemm_desc *C, int64_t samples);
/* One line saying what starpu_gemm_check_math compares for a product of prec under math:
 * the reference's precision and the bound. */
void starpu_gemm_check_describe(FILE *out, char prec, int math);

/* Residual bound under which a result passes. */
#define STARPU_GEMM_CHECK_BOUND 10.0

#ifdef __cplusplus
}
#endif
#endif /* STARPU_GEMM_H */
