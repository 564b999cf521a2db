#!/usr/bin/env bash
# Build StarPU 1.4.10 from Debian's source package into a fixed prefix outside the clone,
# once: a stamp records version + options, so a second setup reuses the install at once.
#   STARPU_GEMM_DEPS     where deps live (default ~/.cache/starpu-gemm); the prefix is printed.
#   STARPU_GEMM_SIMGRID  1: the simulated StarPU (StarPU+SimGrid, needs libsimgrid-dev and
#                        xsltproc) into its own prefix, starpu-1.4.10-simgrid (scripts/paths.sh).
#   STARPU_GEMM_FXT      1: StarPU with FxT traces (--enable-fxt, Debian's libfxt-dev) into its own
#                        prefix, starpu-1.4.10-fxt: STARPU_FXT_TRACE, starpu_fxt_tool, ViTE.
set -euo pipefail

version=1.4.10
debver=1.4.10+dfsg-2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/paths.sh"
deps=$STARPU_GEMM_DEPS
prefix=$STARPU_PREFIX
cuda_dir=${CUDA_DIR:-/usr/local/cuda}

options=(--prefix="$prefix" --enable-mpi --enable-maxcpus=256 --enable-maxcudadev=16
         --disable-build-doc --disable-build-examples --disable-build-tests
         --disable-opencl --disable-fortran --disable-socl --disable-starpufft
         --disable-starpupy --disable-hip)
build_dir=build
if [ "${STARPU_GEMM_SIMGRID:-0}" = 1 ]; then
  # SimGrid simulates the CUDA devices (StarPU refuses real CUDA with it) and, with MPI,
  # links statically only; maxcpus/maxcudadev are the simulated node's, not this machine's.
  options+=(--enable-simgrid --disable-shared --disable-cuda)
  build_dir=build-simgrid
elif [ -x "$cuda_dir/bin/nvcc" ]; then
  options+=(--enable-cuda --with-cuda-dir="$cuda_dir")
else
  options+=(--disable-cuda)
fi
if [ "${STARPU_GEMM_FXT:-0}" = 1 ] && [ "${STARPU_GEMM_SIMGRID:-0}" != 1 ]; then
  # FxT from Debian (its fxt.pc): --enable-fxt fails when FxT is missing, where StarPU's
  # default (maybe) would quietly build without; --with-fxt=DIR is for an FxT of its own
  # prefix. Traces are written at shutdown under STARPU_FXT_TRACE=1, read by starpu_fxt_tool.
  # (The default build does not say --disable-fxt, so as not to rebuild every cached StarPU:
  # once libfxt-dev is installed, a StarPU built afresh there has FxT too, tracing off.)
  options+=(--enable-fxt)
  build_dir=build-fxt
fi
stamp_text="starpu $debver ${options[*]}"
stamp=$prefix/.starpu-gemm-stamp

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$stamp_text" ]; then
  echo "StarPU $version already installed in $prefix (stamp matches)"
  exit 0
fi

src_root=$deps/src
mkdir -p "$src_root"
cd "$src_root"
if [ ! -d "starpu-$version+dfsg" ]; then
  # Debian's source package: bookworm has no 1.4.x, so read sources from sid (deb-src only:
  # no binary from sid is ever installed).
  list=/etc/apt/sources.list.d/starpu-gemm-sid-src.sources
  if [ ! -f "$list" ]; then
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: sid\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' > "$list"
    apt-get update -qq
  fi
  apt-get source -qq --only-source "starpu=$debver"
fi
cd "starpu-$version+dfsg"

# CUDA 13 removed cudaDeviceProp::computeMode: ask the runtime for the attribute instead.
# The helper is compiled only with real CUDA (a SimGrid or CPU build has no cuda_runtime.h);
# a tree patched before that guard existed gets it added.
for f in src/drivers/cuda/driver_cuda.c src/drivers/cuda/driver_cuda1.c; do
  [ -f "$f" ] || continue
  perl -0pi -e 's/props\[devid\]\.computeMode/starpu_gemm_compute_mode(devid)/g' "$f"
  if grep -q 'starpu_gemm_compute_mode(devid)' "$f" && ! grep -q 'static int starpu_gemm_compute_mode' "$f"; then
    perl -0pi -e 's/(#include <core\/debug.h>\n)/$1\n\/* CUDA 13 dropped cudaDeviceProp::computeMode. *\/\n#ifdef STARPU_USE_CUDA\nstatic int starpu_gemm_compute_mode(int dev)\n{\n\tint mode = cudaComputeModeDefault;\n\tif (cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, dev) != cudaSuccess)\n\t\tmode = cudaComputeModeDefault;\n\treturn mode;\n}\n#endif\n/' "$f"
  fi
  if grep -q 'static int starpu_gemm_compute_mode' "$f" && ! grep -B1 'static int starpu_gemm_compute_mode' "$f" | grep -q STARPU_USE_CUDA; then
    perl -0pi -e 's/(static int starpu_gemm_compute_mode\(int dev\)\n\{.*?\n\}\n)/#ifdef STARPU_USE_CUDA\n$1#endif\n/s' "$f"
  fi
done

[ -x configure ] || ./autogen.sh
mkdir -p "$build_dir" && cd "$build_dir"
../configure "${options[@]}" > configure.log 2>&1 || { tail -30 configure.log; exit 1; }
make -j"$(nproc)" > make.log 2>&1 || { grep -B2 -A5 -m5 'error' make.log; exit 1; }
make install > install.log 2>&1
echo "$stamp_text" > "$stamp"
echo "StarPU $version installed in $prefix"
