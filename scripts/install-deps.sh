#!/usr/bin/env bash
# Install the Debian packages the project builds against; a no-op when all are present.
set -euo pipefail
packages=(build-essential libopenmpi-dev openmpi-bin libhwloc-dev libopenblas-dev pkg-config
          autoconf automake libtool gnuplot-nox libscalapack-openmpi-dev dpkg-dev perl
          valgrind libblas-test python3-numpy scalapack-mpi-test
          help2man cmake)
# The simulated build (./bootstrap.sh simulate): SimGrid's SMPI, and xsltproc for starpu_smpirun.
[ "${STARPU_GEMM_SIMGRID:-0}" = 1 ] && packages+=(libsimgrid-dev xsltproc)
# StarPU with FxT traces (STARPU_GEMM_FXT=1): the FxT library StarPU's --with-fxt links.
[ "${STARPU_GEMM_FXT:-0}" = 1 ] && packages+=(libfxt-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing Debian packages: ${missing[*]}"
  sudo=; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
