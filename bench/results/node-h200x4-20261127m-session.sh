# Call M (4 x H200), from the repository root with the bundle carried:
BUNDLE=bundle OUT=$OUT NITER=3 NITER_BIG=3 NODE_BUDGET_S=500 N_LIST="32768 65536" N_BIG=65536 CASES="cublas-peak mpi-rate 1x4 4x1 2x2 bf16-1x4" scripts/device-session.sh node
