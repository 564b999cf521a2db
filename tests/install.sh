#!/usr/bin/env bash
# Installation: configure this source tree again with this build's options but a temporary
# --prefix, `make install`, then build tests/example_pkgconfig.c only through
# `pkg-config --cflags --libs starpu-gemm` and run it on 1 rank (a tile dgemm through
# starpu_gemm_tile_insert against a naive loop). A fresh configure, rather than
# `make install prefix=...`, because starpu-gemm.pc records the prefix given to configure.
set -eu
: "${top_srcdir:?}" "${top_builddir:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/starpu-gemm-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
makevar() { sed -n "s/^$1 = //p" "$top_builddir/Makefile"; }
if [ -f "$top_srcdir/config.status" ]; then
	echo "SKIP install: the source tree is configured in place: no second build of it"
	exit 77
fi

# This build's configure arguments, precious variables (PKG_CONFIG_PATH, MPICC...) included.
eval "set -- $("$top_builddir/config.status" --config)"
mkdir "$tmp/build"
if ! (cd "$tmp/build" && "$top_srcdir/configure" "$@" --prefix="$tmp/prefix") \
	>"$tmp/configure.log" 2>&1; then
	tail -n 40 "$tmp/configure.log"; echo "FAIL install: configure"; exit 1
fi
# The outer make's MAKEFLAGS carry its command-line variables (TESTS=...): not for this one.
if ! env -u MAKEFLAGS -u MFLAGS make -C "$tmp/build" -j2 install >"$tmp/make.log" 2>&1; then
	tail -n 40 "$tmp/make.log"; echo "FAIL install: make install"; exit 1
fi
for f in include/starpu_gemm.h lib/libstarpu_gemm.so lib/pkgconfig/starpu-gemm.pc; do
	test -e "$tmp/prefix/$f" || { echo "FAIL install: $f not installed"; exit 1; }
done

configured_pc_path=$(makevar PKG_CONFIG_PATH)
PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig${configured_pc_path:+:$configured_pc_path}\
${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export PKG_CONFIG_PATH
pc=$(makevar PKG_CONFIG)
cflags=$("${pc:-pkg-config}" --cflags starpu-gemm)
libs=$("${pc:-pkg-config}" --libs starpu-gemm)
echo "# pkg-config --cflags --libs starpu-gemm: $cflags $libs"
case " $cflags " in
*" -I$tmp/prefix/include "*) ;;
*) echo "FAIL install: pkg-config cflags do not name the installed include directory"; exit 1 ;;
esac
# The MPI compiler wrapper this build used (starpu_gemm.h includes mpi.h); sanitizer flags
# too, whose runtime must come first when the library was built with them. -Werror: the
# public header must not add warnings to a user's -Wall -Wextra build.
# shellcheck disable=SC2046,SC2086
$(makevar CC) -std=gnu11 -Wall -Wextra -Werror $(makevar SANITIZER_CFLAGS) $cflags \
	-o "$tmp/example" "$top_srcdir/tests/example_pkgconfig.c" $libs
if ! ldd "$tmp/example" | grep -q "$tmp/prefix/lib/libstarpu_gemm.so"; then
	ldd "$tmp/example"; echo "FAIL install: example does not load the installed library"; exit 1
fi
"$top_srcdir/tests/mpirun.sh" 1 "$tmp/example"
echo "PASS install: make install, pkg-config build and run of example_pkgconfig"
