#!/usr/bin/env bash
# Installation, checked as a user would find it: configure this source tree again with this
# build's options but a temporary --prefix P, `make install`, then from a clean environment
# (env -i: only P/bin and the system on PATH, only P/lib/pkgconfig on PKG_CONFIG_PATH):
#   - P/bin/starpu_gemm --version answers, and loads P's library (ldd);
#   - P/share/man/man1/starpu_gemm.1 and P/lib/cmake/starpu_gemm are installed;
#   - tests/example_gemm.c (starpu_gemm_gemm on host arrays) builds with a plain cc through
#     `pkg-config --cflags --libs starpu-gemm`, and runs;
#   - the same program builds through CMake's find_package(starpu_gemm) and runs (SKIP, said
#     loudly, where cmake is not installed);
#   - tests/example_pkgconfig.c (StarPU-MPI and a tile codelet) builds the same way and runs on
#     1 rank.
# A fresh configure, rather than `make install prefix=...`, because starpu-gemm.pc and the
# CMake package record the prefix given to configure.
set -eu
: "${top_srcdir:?}" "${top_builddir:?}"
# Absolute: the checks below run from other directories.
top_srcdir=$(cd "$top_srcdir" && pwd)
top_builddir=$(cd "$top_builddir" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/starpu-gemm-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
makevar() { sed -n "s/^$1 = //p" "$top_builddir/Makefile"; }
fail() { echo "FAIL install: $*"; exit 1; }
if [ -f "$top_srcdir/config.status" ]; then
	echo "SKIP install: the source tree is configured in place: no second build of it"
	exit 77
fi

# This build's configure arguments, precious variables (PKG_CONFIG_PATH, MPICC...) included,
# less the source and install places (make distcheck gives a relative --srcdir).
eval "set -- $("$top_builddir/config.status" --config)"
args=()
for a in "$@"; do
	case $a in --srcdir=*|--prefix=*|--cache-file=*) ;; *) args+=("$a") ;; esac
done
P=$tmp/prefix
mkdir "$tmp/build"
if ! (cd "$tmp/build" && "$top_srcdir/configure" ${args[@]+"${args[@]}"} --prefix="$P") \
	>"$tmp/configure.log" 2>&1; then
	tail -n 40 "$tmp/configure.log"; fail "configure"
fi
# The outer make's MAKEFLAGS carry its command-line variables (TESTS=...): not for this one.
if ! env -u MAKEFLAGS -u MFLAGS make -C "$tmp/build" -j2 install >"$tmp/make.log" 2>&1; then
	tail -n 40 "$tmp/make.log"; fail "make install"
fi
for f in include/starpu_gemm.h lib/libstarpu_gemm.so lib/pkgconfig/starpu-gemm.pc \
	bin/starpu_gemm share/man/man1/starpu_gemm.1 lib/cmake/starpu_gemm/starpu_gemmConfig.cmake \
	lib/cmake/starpu_gemm/starpu_gemmConfigVersion.cmake share/doc/starpu-gemm/LICENSE; do
	test -s "$P/$f" || fail "$f not installed"
done
grep -q '^\.TH STARPU_GEMM' "$P/share/man/man1/starpu_gemm.1" || fail "starpu_gemm.1 is no man page"
echo "# installed in P=$P: bin/starpu_gemm, lib, include, pkgconfig, cmake, man1, LICENSE"

# The new shell: nothing of this build's environment. The sanitizer runtime options of a
# sanitizer build pass through (its programs need them, not the install).
clean_env=(env -i PATH="$P/bin:/usr/bin:/bin" PKG_CONFIG_PATH="$P/lib/pkgconfig"
	HOME="$HOME" TMPDIR="${TMPDIR:-/tmp}" STARPU_SILENT=1)
for v in ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS HWLOC_PLUGINS_BLACKLIST STARPU_HOME; do
	[ -n "${!v:-}" ] && clean_env+=("$v=${!v}")
done
sanitizer=$(makevar SANITIZER_CFLAGS)

version=$("${clean_env[@]}" "$P/bin/starpu_gemm" --version) || fail "starpu_gemm --version exits $?"
case $version in
"starpu_gemm $(makevar PACKAGE_VERSION) (StarPU "*) echo "# starpu_gemm --version: $version" ;;
*) fail "starpu_gemm --version printed '$version'" ;;
esac
ldd "$P/bin/starpu_gemm" | grep -q "=> $P/lib/libstarpu_gemm.so" ||
	{ ldd "$P/bin/starpu_gemm"; fail "P/bin/starpu_gemm does not load P/lib/libstarpu_gemm.so"; }
echo "# ldd P/bin/starpu_gemm: $(ldd "$P/bin/starpu_gemm" | grep libstarpu_gemm)"

# pkg-config from the new shell, with the system's cc (no MPI wrapper). -Werror: the public
# header must not add warnings to a user's -Wall -Wextra build.
cp "$top_srcdir/tests/example_gemm.c" "$top_srcdir/tests/example_pkgconfig.c" "$tmp/"
# shellcheck disable=SC2016
"${clean_env[@]}" SAN="$sanitizer" bash -c 'cd "$1" &&
	echo "# pkg-config --cflags --libs starpu-gemm: $(pkg-config --cflags --libs starpu-gemm)" &&
	for p in example_gemm example_pkgconfig; do
		cc -std=gnu11 -Wall -Wextra -Werror $SAN $(pkg-config --cflags starpu-gemm) \
			-o $p $p.c $(pkg-config --libs starpu-gemm) -lm || exit 1
	done' _ "$tmp" || fail "a new shell cannot build against P through pkg-config"
for p in example_gemm example_pkgconfig; do
	ldd "$tmp/$p" | grep -q "=> $P/lib/libstarpu_gemm.so" ||
		{ ldd "$tmp/$p"; fail "$p does not load P's library"; }
done
"${clean_env[@]}" timeout 120 "$tmp/example_gemm" || fail "example_gemm (pkg-config) failed"
"$top_srcdir/tests/mpirun.sh" 1 "$tmp/example_pkgconfig" || fail "example_pkgconfig failed"

# CMake from the new shell: find_package finds P through P/bin on PATH.
cmake_result="find_package(starpu_gemm)"
if "${clean_env[@]}" sh -c 'command -v cmake' >/dev/null 2>&1; then
	mkdir "$tmp/cmake"
	cp "$top_srcdir/tests/example_gemm.c" "$tmp/cmake/"
	cat >"$tmp/cmake/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.13)
project(starpu_gemm_example C)
find_package(starpu_gemm 0.1 REQUIRED)
add_executable(example_gemm example_gemm.c)
target_link_libraries(example_gemm PRIVATE starpu_gemm::starpu_gemm m)
CMAKE
	if ! "${clean_env[@]}" CFLAGS="$sanitizer" LDFLAGS="$sanitizer" bash -c \
		'cmake -S "$1" -B "$1/b" -DCMAKE_C_COMPILER=cc && cmake --build "$1/b"' _ "$tmp/cmake" \
		>"$tmp/cmake.log" 2>&1; then
		tail -n 30 "$tmp/cmake.log"; fail "a new shell cannot build against P through CMake"
	fi
	ldd "$tmp/cmake/b/example_gemm" | grep -q "=> $P/lib/libstarpu_gemm.so" ||
		fail "the CMake-built example does not load P's library"
	"${clean_env[@]}" timeout 120 "$tmp/cmake/b/example_gemm" || fail "example_gemm (CMake) failed"
else
	echo "SKIP install: cmake is not installed: find_package(starpu_gemm) NOT CHECKED (Debian: apt-get install cmake)"
	cmake_result="NOT the CMake package (no cmake)"
fi
echo "PASS install: make install; --version, ldd, man page; a new shell builds and runs" \
	"starpu_gemm_gemm through pkg-config and $cmake_result"
