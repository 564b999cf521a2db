#!/usr/bin/env bash
# A program never compiled against us: Debian's numpy computing `a @ b` (float64, float32,
# complex128; plain and transposed operands) gives the same products with the interposer
# preloaded, every call through StarPU, as without it; and numpy's cblas_?gemm calls reached
# the interposer (its count of calls through StarPU is at least the number of products). Then,
# within a minute (issue 29): products in a child of os.fork() and in a multiprocessing pool
# after the parent's went through StarPU, an invalid cblas_dgemm (reported, the program goes
# on), and the parent's next product.
set -u
. "$top_srcdir/tests/blas_env.sh"
skip_under_sanitizers
py=
for candidate in /usr/bin/python3 python3; do
	if "$candidate" -c 'import numpy' 2>/dev/null; then py=$candidate; break; fi
done
if [ -z "$py" ]; then
	echo "SKIP blas_numpy: no python3 with numpy (Debian: python3-numpy, in scripts/install-deps.sh)"
	exit 77
fi
work=$top_builddir/tests/blas-numpy
rm -rf "$work"; mkdir -p "$work"
script=$top_srcdir/tests/blas_numpy.py
# Tiles of 96: each product runs as several tiles (a different summation order), not as one.
export STARPU_GEMM_TILE=${STARPU_GEMM_TILE:-96}
echo "# $("$py" -c 'import numpy; print("numpy", numpy.__version__)') ($py)"
"$py" "$script" "$work/plain.npz" || { echo "FAIL blas_numpy: numpy without the preload"; exit 1; }
if ! preloaded "$py" "$script" "$work/preloaded.npz" 2> "$work/preloaded.err"; then
	cat "$work/preloaded.err"; echo "FAIL blas_numpy: numpy with the preload"; exit 1
fi
"$py" "$script" compare "$work/plain.npz" "$work/preloaded.npz" || exit 1
calls=$(through_starpu "$work/preloaded.err")
if [ "${calls:-0}" -lt 9 ]; then
	cat "$work/preloaded.err"
	echo "FAIL blas_numpy: ${calls:-no} calls through StarPU, expected one per product (9)"
	exit 1
fi
echo "PASS blas_numpy: 9 products agree within the bound, $calls calls through StarPU"
if SG_TEST_TIMEOUT=60 preloaded "$py" "$script" robust > "$work/robust.out" \
	2> "$work/robust.err"; then
	cat "$work/robust.out"
	echo "PASS blas_numpy robust: fork, multiprocessing pool and an invalid call, all correct"
else
	cat "$work/robust.out" "$work/robust.err"
	echo "FAIL blas_numpy robust: a failure or a hang (killed after 60 s)"; exit 1
fi
