"""numpy's `a @ b`, a program never compiled against starpu-gemm, for tests/blas_numpy.sh.

  blas_numpy.py OUT.npz          compute the products and save them
  blas_numpy.py compare X Y      compare two saved runs norm-wise: for each product
                                 ||C_X - C_Y||_F <= 10 k eps ||A||_F ||B||_F
  blas_numpy.py robust           under the preload: after a product through StarPU, a child
                                 of os.fork() and the workers of a multiprocessing pool
                                 multiply correctly, an invalid cblas_dgemm is reported and
                                 the program goes on, and the parent's next product is
                                 correct (each against numpy's own loops, no BLAS)
The operands come from a fixed seed, so every run multiplies the same matrices."""
import sys
import numpy as np

M, K, N = 300, 200, 250


def operands():
    """name -> (A as numpy multiplies it, B, k); transposed operands are views, so numpy hands
    the BLAS a transpose flag rather than a copy."""
    rng = np.random.default_rng(20261123)
    cases = {}
    for dtype in (np.float64, np.float32, np.complex128):
        def rand(rows, cols):
            x = rng.uniform(-0.5, 0.5, (rows, cols))
            if np.iscomplexobj(np.zeros(1, dtype)):
                x = x + 1j * rng.uniform(-0.5, 0.5, (rows, cols))
            return x.astype(dtype)
        name = np.dtype(dtype).name
        cases[name + " NN"] = (rand(M, K), rand(K, N))
        cases[name + " TN"] = (rand(K, M).T, rand(K, N))
        cases[name + " NT"] = (rand(M, K), rand(N, K).T)
    return cases


def check(what, a, b, c):
    """c against einsum's own loops (optimize=False: no BLAS), within the bound above."""
    want = np.einsum("ik,kj->ij", a, b, optimize=False)
    bound = 10 * a.shape[1] * np.finfo(a.dtype).eps * np.linalg.norm(a) * np.linalg.norm(b)
    diff = np.linalg.norm(c - want)
    print(f"{'PASS' if diff <= bound else 'FAIL'} {what}: ||C-Cref||_F = {diff:.3e} "
          f"<= {bound:.3e}", flush=True)
    return diff <= bound


def pool_product(name):
    a, b = operands()[name]
    return a @ b


def robust():
    import ctypes
    import multiprocessing
    import os
    cases = operands()
    a, b = cases["float64 NN"]
    ok = check("parent, before fork", a, b, a @ b)
    child = os.fork()
    if child == 0:
        ta, tb = cases["float32 TN"]
        good = check("os.fork() child, float64", a, b, a @ b)
        good = check("os.fork() child, float32 TN", ta, tb, ta @ tb) and good
        os._exit(0 if good else 1)
    _, status = os.waitpid(child, 0)
    ok = os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and ok
    print(f"{'PASS' if ok else 'FAIL'} os.fork() child ended with status {status}", flush=True)
    names = ["float64 NN", "complex128 NT", "float64 TN"]
    with multiprocessing.get_context("fork").Pool(2) as pool:
        results = pool.map(pool_product, names)
    for name, c in zip(names, results):
        ok = check(f"multiprocessing pool, {name}", *cases[name], c) and ok
    # An invalid cblas_dgemm (lda = 1 < m = 2): reported by the BLAS, C untouched, and on.
    blas = ctypes.CDLL(None)
    dbl = ctypes.c_double
    x, y, z = (dbl * 4)(1, 2, 3, 4), (dbl * 4)(1, 0, 0, 1), (dbl * 4)(7, 7, 7, 7)
    args = [ctypes.c_int(v) for v in (102, 111, 111, 2, 2, 2)]
    blas.cblas_dgemm(*args, dbl(1), x, ctypes.c_int(1), y, ctypes.c_int(2), dbl(0), z,
                     ctypes.c_int(2))
    bad_ok = list(z) == [7, 7, 7, 7]
    blas.cblas_dgemm(*args, dbl(1), x, ctypes.c_int(2), y, ctypes.c_int(2), dbl(0), z,
                     ctypes.c_int(2))
    bad_ok = bad_ok and list(z) == [1, 2, 3, 4]
    print(f"{'PASS' if bad_ok else 'FAIL'} invalid cblas_dgemm: reported, C untouched, and the "
          f"next call correct ({list(z)})", flush=True)
    ok = check("parent, after all that", a, b, a @ b) and ok and bad_ok
    sys.exit(0 if ok else 1)


def main():
    if sys.argv[1] == "robust":
        robust()
        return
    if sys.argv[1] == "compare":
        x, y = np.load(sys.argv[2]), np.load(sys.argv[3])
        worst = 0.0
        for name, (a, b) in operands().items():
            eps = np.finfo(a.dtype).eps
            bound = 10 * K * eps * np.linalg.norm(a) * np.linalg.norm(b)
            diff = np.linalg.norm(x[name] - y[name])
            ok = diff <= bound
            worst = max(worst, diff / bound)
            print(f"{'PASS' if ok else 'FAIL'} {name}: {M}x{K} @ {K}x{N}, "
                  f"||C1-C2||_F = {diff:.3e} <= {bound:.3e}")
            if not ok:
                sys.exit(1)
        print(f"all products agree (worst ratio to the bound {worst:.3f})")
        return
    np.savez(sys.argv[1], **{name: a @ b for name, (a, b) in operands().items()})


main()
