"""numpy's `a @ b`, a program never compiled against starpu-gemm, for tests/blas_numpy.sh.

  blas_numpy.py OUT.npz          compute the products and save them
  blas_numpy.py compare X Y      compare two saved runs norm-wise: for each product
                                 ||C_X - C_Y||_F <= 10 k eps ||A||_F ||B||_F
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


def main():
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
