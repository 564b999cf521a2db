/* One precision's tile GEMM codelet: CPU and CUDA implementations, performance model.
 * Not compiled alone: gemm_codelets.c includes it once per precision after defining
 *   SG_SUFFIX       s, d, c or z (appended to every name defined here)
 *   SG_LETTER       's', 'd', 'c' or 'z'
 *   SG_NAME         "starpu_gemm_<p>gemm": codelet name and performance-model symbol
 *   SG_CUDA_TYPE    float, double, cuComplex or cuDoubleComplex
 *   SG_CUBLAS_GEMM  cublasSgemm, cublasDgemm, cublasCgemm or cublasZgemm
 * Everything that does not depend on the precision lives in gemm_codelets.c. */

#define SG_ID(name) SG_PASTE(name, SG_SUFFIX)

static void SG_ID(cpu_gemm_)(void *buffers[], void *cl_arg)
{
	struct gemm_call call;
	unpack_call(&call, SG_LETTER, buffers);
	int ret = sg_cblas_gemm(SG_LETTER, call.transA, call.transB, call.m, call.n, call.k,
	                       &call.alpha, call.A, call.lda, call.B, call.ldb, &call.beta,
	                       call.C, call.ldc);
	if (ret != 0)
		call_failed(&call, "sg_cblas_gemm", strerror(-ret));
}

#ifdef STARPU_USE_CUDA
/* Asynchronous (STARPU_CUDA_ASYNC): StarPU bound the worker's cuBLAS handle to its stream and
 * waits on that stream itself. alpha and beta are host scalars (the handle's default pointer
 * mode), which cuBLAS reads before the call returns, so locals are fine. */
static void SG_ID(cuda_gemm_)(void *buffers[], void *cl_arg)
{
	struct gemm_call call;
	unpack_call(&call, SG_LETTER, buffers);
	/* Clear an error left by an earlier runtime call of this thread (StarPU ignores some,
	 * e.g. peer access already enabled): only the launch below is ours to report. */
	(void)cudaGetLastError();
	cublasStatus_t status = SG_CUBLAS_GEMM(starpu_cublas_get_local_handle(),
		cublas_op(call.transA), cublas_op(call.transB), call.m, call.n, call.k,
		(const SG_CUDA_TYPE *)&call.alpha, (const SG_CUDA_TYPE *)call.A, call.lda,
		(const SG_CUDA_TYPE *)call.B, call.ldb, (const SG_CUDA_TYPE *)&call.beta,
		(SG_CUDA_TYPE *)call.C, call.ldc);
	if (status != CUBLAS_STATUS_SUCCESS)
		call_failed(&call, "cuBLAS gemm", cublasGetStatusString(status));
	/* A kernel that could not be launched. A fault during its run surfaces when StarPU
	 * synchronises the stream: StarPU reports it and aborts the process, which ends the
	 * job like any dead rank (tests/kill_rank.sh). */
	cudaError_t launch = cudaGetLastError();
	if (launch != cudaSuccess)
		call_failed(&call, "CUDA kernel launch", cudaGetErrorString(launch));
}
#endif

static uint32_t SG_ID(footprint_)(struct starpu_task *task)
{
	return gemm_footprint(task, SG_LETTER);
}

static struct starpu_perfmodel SG_ID(model_) = {
	.type = STARPU_HISTORY_BASED,
	.symbol = SG_NAME,
	.footprint = SG_ID(footprint_),
};

#ifdef STARPU_USE_CUDA
#define SG_CUDA_FIELDS .cuda_funcs = { SG_ID(cuda_gemm_) }, .cuda_flags = { STARPU_CUDA_ASYNC },
#elif defined(STARPU_SIMGRID)
/* StarPU+SimGrid runs no kernel, it charges the model's time: a CUDA implementation only has
 * to exist for the simulated GPUs to get tasks (StarPU's own SimGrid examples). */
#define SG_CUDA_FIELDS .cuda_funcs = { SG_ID(cpu_gemm_) }, .cuda_flags = { STARPU_CUDA_ASYNC },
#else
#define SG_CUDA_FIELDS
#endif
#define SG_GEMM_CODELET(c_mode)                                                             \
	{ .name = SG_NAME, .cpu_funcs = { SG_ID(cpu_gemm_) }, SG_CUDA_FIELDS .nbuffers = 3,   \
	  .modes = { STARPU_R, STARPU_R, c_mode }, .model = &SG_ID(model_) }

static struct starpu_codelet SG_ID(codelet_) = SG_GEMM_CODELET(STARPU_RW);

/* The same kernels for a first update with beta = 0, which BLAS lets ignore C's old value:
 * C is written, not read, so StarPU moves no copy of it to the GPU (one tile in three of a
 * GEMM's loads). The model is shared: the kernel is the same. */
static struct starpu_codelet SG_ID(overwrite_codelet_) = SG_GEMM_CODELET(STARPU_W);

#undef SG_GEMM_CODELET
#undef SG_CUDA_FIELDS
#undef SG_ID
#undef SG_SUFFIX
#undef SG_LETTER
#undef SG_NAME
#undef SG_CUDA_TYPE
#undef SG_CUBLAS_GEMM
