#!/usr/bin/env bash
# Build a relocatable runtime bundle for GPU nodes that have no package registry:
#   scripts/bundle.sh [DEST]            (default ./bundle; DEST is emptied first)
# then on the node:  . DEST/env.sh && DEST/starpu-gemm/bench/gpu.sh
# DEST holds
#   starpu/        StarPU's install tree (prefix from scripts/paths.sh) without .a and .la
#   starpu-gemm/   lib/libstarpu_gemm.so*, build/drivers/starpu_gemm, build/bench/<peers>,
#                  build/tests/<GPU test programs>, bench/*.sh, tests/gpu.sh, perfmodels/:
#                  the repository's layout, so the scripts run as is
#   deblibs/PKG/   Debian runtime packages the node may lack (dpkg -x, never into /):
#                  OpenBLAS and what it and StarPU need, never Open MPI or PMIx (the node's
#                  own Open MPI 4.x, libmpi.so.40, is used), nor CUDA (the node's CUDA 13)
#   env.sh         LD_LIBRARY_PATH, PATH and STARPU_* defaults, relative to its own place
# Environment: BUILD [build] (a configured build tree; it is brought up to date with make),
#   BUNDLE_STRIP [1] (strip debug info from the StarPU and project copies: 21 MB -> 8 MB),
#   BUNDLE_MAX_MB [60] (fail above), BUNDLE_SCALAPACK [0] (1: add the ScaLAPACK peer, +13 MB).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/paths.sh"

dest=${1:-bundle}
case $dest in /*) ;; *) dest=$PWD/$dest ;; esac
build=${BUILD:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
strip_debug=${BUNDLE_STRIP:-1}
max_mb=${BUNDLE_MAX_MB:-60}
with_scalapack=${BUNDLE_SCALAPACK:-0}
multiarch=x86_64-linux-gnu

say() { printf '%s\n' "$*"; }
die() { printf 'scripts/bundle.sh: %s\n' "$*" >&2; exit 1; }

[ -d "$STARPU_PREFIX/lib" ] || die "no StarPU in $STARPU_PREFIX: run scripts/install-starpu.sh"
[ -f "$build/Makefile" ] || die "$build is not a configured build tree: run ./bootstrap.sh build, or set BUILD"
case $dest in
  "$top"|"$build"|"$STARPU_PREFIX"|/) die "refusing to empty $dest" ;;
esac
say "bringing $build up to date"
# The test programs too (check_PROGRAMS): the GPU tests run from the bundle.
make -C "$build" -j"$(nproc)" > /dev/null && make -C "$build" -j"$(nproc)" check TESTS= > /dev/null ||
  die "make in $build failed"
[ -x "$build/drivers/starpu_gemm" ] || die "$build/drivers/starpu_gemm was not built"

rm -rf "$dest"
mkdir -p "$dest"

# --- StarPU: the install tree, less what only static linking or libtool needs ---------------
say "StarPU from $STARPU_PREFIX"
mkdir -p "$dest/starpu"
tar -C "$STARPU_PREFIX" --exclude='*.a' --exclude='*.la' -cf - . | tar -C "$dest/starpu" -xf -
# StarPU looks for its installed perf models under this compile-time prefix (and warns when
# the folder is missing): recorded so a node can create it.
echo "$STARPU_PREFIX" > "$dest/starpu/BUILD_PREFIX"

# --- the project, in the repository's layout --------------------------------------------------
say "starpu-gemm from $build"
sg=$dest/starpu-gemm
mkdir -p "$sg/lib" "$sg/build/drivers" "$sg/build/bench" "$sg/bench"
# The library and its doors (libstarpu_gemm_blas.so, libstarpu_gemm_scalapack.so when built).
cp -a "$build"/.libs/libstarpu_gemm*.so* "$sg/lib/"
cp "$build/drivers/starpu_gemm" "$sg/build/drivers/"
peers=(openblas_dgemm cublas_peak cublasxt_dgemm pin_rate stage_rate dgemm_app mpi_rate)
if [ "$with_scalapack" = 1 ]; then peers+=(scalapack_pdgemm); fi
for peer in "${peers[@]}"; do
  if [ -x "$build/bench/$peer" ]; then
    cp "$build/bench/$peer" "$sg/build/bench/"
  else
    say "  note: $build/bench/$peer not built, left out"
  fi
done
for f in cpu.sh gpu.sh arrays.sh tensor.sh node.sh lib.sh report.py targets.csv README.md; do
  cp "$top/bench/$f" "$sg/bench/" || die "bench/$f is missing from $top"
done
# The GPU tests (tests/gpu.sh) and what they run; the perf-model scripts.
mkdir -p "$sg/build/tests" "$sg/tests" "$sg/scripts"
tests=(test_codelets test_pgemm test_gemm test_user_desc test_tensor)
# The ScaLAPACK drop-in's own check (a residual against the reference), for runs on GPUs.
if [ "$with_scalapack" = 1 ]; then tests+=(test_scalapack_app); fi
for t in "${tests[@]}"; do
  cp "$build/tests/$t" "$sg/build/tests/" || die "$build/tests/$t was not built"
done
cp "$top/tests/gpu.sh" "$top/tests/mpirun.sh" "$top/tests/gemm.sh" "$top/tests/user_desc.sh" \
   "$sg/tests/"
cp "$top/scripts/gpu-per-rank.sh" "$sg/scripts/"
[ -d "$top/perfmodels" ] && cp -a "$top/perfmodels" "$sg/"

if [ "$strip_debug" = 1 ]; then
  find "$dest/starpu/lib" "$sg/lib" "$sg/build" -type f \( -name '*.so*' -o -perm -u+x \) |
    while read -r f; do
      # Only ELF files: StarPU's bin/ also holds scripts.
      if [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ]; then
        strip --strip-debug "$f"
      fi
    done
fi

# --- Debian runtime libraries -------------------------------------------------------------------
# Found with ldd on the bundled binaries, less what an Ubuntu 24.04 + CUDA image has (glibc,
# libgcc_s, libstdc++, zlib), less Open MPI and what only it needs (libevent, PMIx), less CUDA.
#   libopenblas0-pthread   libstarpu_gemm's CBLAS (libopenblas.so.0), libblas.so.3
#   libgfortran5 libquadmath0   OpenBLAS's Fortran runtime
#   libhwloc15             StarPU's topology (the node's Open MPI may bring its own)
#   libudev1               libhwloc's dependency
#   libgomp1               StarPU links it
# OpenBLAS is always used from the bundle; the others only where the node lacks them (env.sh).
always=(libopenblas0-pthread)
optional=(libgfortran5:libgfortran.so.5 libquadmath0:libquadmath.so.0 libhwloc15:libhwloc.so.15
          libudev1:libudev.so.1 libgomp1:libgomp.so.1)
if [ "$with_scalapack" = 1 ]; then
  optional+=(libscalapack-openmpi2.2:libscalapack-openmpi.so.2.2)
fi
cache=$STARPU_GEMM_DEPS/debs
mkdir -p "$cache" "$dest/deblibs"
: > "$dest/deblibs/optional.txt"
for entry in "${always[@]}" "${optional[@]}"; do
  pkg=${entry%%:*}
  # The version installed here, the one the binaries were linked against.
  version=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
  deb=$(ls "$cache/${pkg}_"*.deb 2>/dev/null | head -1 || true)
  if [ -n "$version" ]; then
    want="$cache/${pkg}_${version/*:/}_amd64.deb"
    [ -f "$want" ] && deb=$want || deb=""
  fi
  if [ -z "$deb" ]; then
    (cd "$cache" && { apt-get download -qq "$pkg${version:+=$version}" 2>/dev/null ||
                      apt-get download -qq "$pkg"; }) ||
      die "apt-get download $pkg failed (run apt-get update?)"
    deb=$(ls -t "$cache/${pkg}_"*.deb | head -1)
  fi
  say "  $(basename "$deb")"
  dpkg -x "$deb" "$dest/deblibs/$pkg"
  # Docs and packaging metadata are not needed at run time; the copyright files stay.
  find "$dest/deblibs/$pkg/usr/share" -mindepth 1 -maxdepth 1 ! -name doc -exec rm -rf {} + 2>/dev/null || true
  find "$dest/deblibs/$pkg/usr/share/doc" -type f ! -name copyright -delete 2>/dev/null || true
  if [ "$entry" != "$pkg" ]; then echo "$pkg ${entry#*:}" >> "$dest/deblibs/optional.txt"; fi
done
# OpenBLAS's LAPACK shim is only for ScaLAPACK: 7 MB otherwise unused.
if [ "$with_scalapack" != 1 ]; then
  rm -f "$dest/deblibs/libopenblas0-pthread/usr/lib/$multiarch/openblas-pthread/liblapack.so"*
fi

# --- env.sh -----------------------------------------------------------------------------------
cat > "$dest/env.sh" <<'EOF'
# Source from bash:  . path/to/bundle/env.sh
# Makes the bundle's StarPU, starpu_gemm, peers and Debian libraries usable on a node that has
# its own Open MPI 4.x (libmpi.so.40) and CUDA 13. Paths are relative to this file, so the
# bundle may be moved. LD_LIBRARY_PATH is searched before the binaries' RUNPATH (which points
# at the build machine), so the bundle's copies are the ones loaded.
#   STARPU_GEMM_BUNDLE_ALL_LIBS=1   use every carried library, even those the node has
_sg_bundle=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
_sg_lib=$_sg_bundle/starpu-gemm/lib:$_sg_bundle/starpu/lib
_sg_lib=$_sg_lib:$_sg_bundle/deblibs/libopenblas0-pthread/usr/lib/x86_64-linux-gnu/openblas-pthread
# Carried libraries the node may already have: its own (newer, and shared with its Open MPI)
# win; ours fill the gaps.
_sg_ldcache=$( (ldconfig -p || /sbin/ldconfig -p) 2>/dev/null)
while read -r _sg_pkg _sg_soname; do
  [ -n "$_sg_pkg" ] || continue
  if [ "${STARPU_GEMM_BUNDLE_ALL_LIBS:-0}" = 1 ] ||
     ! printf '%s\n' "$_sg_ldcache" | grep -q "^[[:space:]]*$_sg_soname (libc6,x86-64"; then
    _sg_lib=$_sg_lib:$_sg_bundle/deblibs/$_sg_pkg/usr/lib/x86_64-linux-gnu
  fi
done < "$_sg_bundle/deblibs/optional.txt"
if [ "${STARPU_GEMM_BUNDLE:-}" != "$_sg_bundle" ]; then
  export LD_LIBRARY_PATH=$_sg_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  # CUDA's libraries, where the node's loader cache does not list them.
  for _sg_cuda in "${CUDA_HOME:-/usr/local/cuda}/lib64"; do
    [ -d "$_sg_cuda" ] && LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$_sg_cuda
  done
  export PATH=$_sg_bundle/starpu-gemm/build/drivers:$_sg_bundle/starpu/bin:$PATH
fi
export STARPU_GEMM_BUNDLE=$_sg_bundle
export STARPU_SILENT=${STARPU_SILENT:-1}
# Performance models and bus calibration: StarPU writes them under STARPU_HOME/.starpu.
if [ -z "${STARPU_HOME:-}" ]; then
  if [ -w "$_sg_bundle" ]; then STARPU_HOME=$_sg_bundle/starpu-home
  else STARPU_HOME=${TMPDIR:-/tmp}/starpu-gemm-home-$(id -u); fi
fi
export STARPU_HOME
mkdir -p "$STARPU_HOME"
# StarPU's CPU workers are the parallelism: each calls a single-threaded OpenBLAS.
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset _sg_bundle _sg_lib _sg_ldcache _sg_pkg _sg_soname _sg_cuda
EOF

# --- check: every ELF resolves inside the bundle, or to what the node provides -------------------
# In a clean environment whose LD_LIBRARY_PATH points only into the bundle, every carried
# library forced on. Allowed from outside: glibc, libgcc_s, libstdc++, zlib; Open MPI and its
# dependencies; CUDA.
provided='^(linux-vdso|ld-linux-x86-64|libc|libm|libdl|librt|libpthread|libgcc_s|libstdc\+\+|libz'
provided+='|libmpi|libopen-rte|libopen-pal|libpmix|libevent[a-z_]*-2\.1|libfabric|libucp|libucs|libuct|libucm'
provided+='|libcuda|libcudart|libcublas|libcublasLt|libcusparse|libcusolver|libnvJitLink|libnvidia-ml)\.so'
report=$(env -i HOME="$HOME" PATH=/usr/bin:/bin STARPU_GEMM_BUNDLE_ALL_LIBS=1 CUDA_HOME=/nonexistent \
  bash -c '. "$1/env.sh" > /dev/null; echo "clean shell: LD_LIBRARY_PATH=$LD_LIBRARY_PATH" >&2
    find "$1" -type f \( -name "*.so*" -o -perm -u+x \) | sort | while read -r f; do
      [ "$(head -c 4 "$f" | od -An -c | tr -d " ")" = 177ELF ] || continue
      ldd "$f" 2> /dev/null | awk -v f="${f#"$1"/}" "\$2 == \"=>\" { print f, \$1, \$3 }"
    done' _ "$dest")
verdict=$(printf '%s\n' "$report" | awk -v dest="$dest" -v provided="$provided" '
  $3 == "not" { print ($2 ~ provided ? "node-must-provide" : "MISSING"), $1, "needs", $2; next }
  index($3, dest "/") == 1 { next }
  $2 ~ provided { next }
  { print "OUTSIDE", $1, "->", $2, $3 }' | sort -u)
if [ -n "$verdict" ]; then
  printf '%s\n' "$verdict" | sed 's/^/  /' >&2
  printf '%s\n' "$verdict" | grep -q '^\(MISSING\|OUTSIDE\)' &&
    die "the bundle does not resolve on its own (above)"
fi
outside=$(printf '%s\n' "$report" | awk -v dest="$dest" 'index($3, dest "/") != 1 && $3 ~ /^\// { print $2 }' |
          sort -u | tr '\n' ' ')
say "resolved outside the bundle (the node provides them): $outside"

size_mb=$(du -sm "$dest" | cut -f1)
say "bundle: $dest, $(du -sh "$dest" | cut -f1) ($size_mb MiB; limit $max_mb)"
du -sh "$dest"/* | sed 's/^/  /'
[ "$size_mb" -le "$max_mb" ] || die "bundle is $size_mb MiB, over BUNDLE_MAX_MB=$max_mb"
say "use: . $dest/env.sh && $dest/starpu-gemm/bench/gpu.sh"
