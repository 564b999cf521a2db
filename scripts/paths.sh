# Sourced by the setup scripts: where the dependencies built outside the clone live.
STARPU_GEMM_DEPS=${STARPU_GEMM_DEPS:-$HOME/.cache/starpu-gemm}
STARPU_VERSION=1.4.10
STARPU_PREFIX=$STARPU_GEMM_DEPS/starpu-$STARPU_VERSION
# STARPU_GEMM_SIMGRID=1: the simulated StarPU (StarPU+SimGrid) in a prefix of its own.
# STARPU_GEMM_FXT=1: StarPU built with FxT traces (--with-fxt), also in a prefix of its own, so
# the default build never pays for tracing. Ignored by the simulated build.
if [ "${STARPU_GEMM_SIMGRID:-0}" = 1 ]; then
  STARPU_PREFIX=$STARPU_PREFIX-simgrid
elif [ "${STARPU_GEMM_FXT:-0}" = 1 ]; then
  STARPU_PREFIX=$STARPU_PREFIX-fxt
fi
export STARPU_GEMM_DEPS STARPU_PREFIX
export PKG_CONFIG_PATH=$STARPU_PREFIX/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export PATH=$STARPU_PREFIX/bin:$PATH
