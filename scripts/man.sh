#!/bin/sh
# Writes the man page of the starpu_gemm driver to stdout, from its --help and --version:
#   scripts/man.sh DRIVER VERSION
# with help2man where installed (Debian: help2man), else a plain page holding the --help text,
# so that a build machine without help2man still builds and installs a page. A driver that
# cannot run here (cross-compiled) gives a page that points to --help.
set -u
driver=$1 version=$2
name="distributed dense matrix multiplication (GEMM) on StarPU and StarPU-MPI"
# The driver's --help starts MPI (a singleton); leak reports of sanitizer builds are not ours.
ASAN_OPTIONS=detect_leaks=0; export ASAN_OPTIONS
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
tmp=${TMPDIR:-/tmp}/starpu_gemm-man.$$
trap 'rm -f "$tmp"' EXIT
if command -v help2man >/dev/null 2>&1 &&
   help2man --no-info --no-discard-stderr --name="$name" --output="$tmp" "$driver" 2>/dev/null &&
   [ -s "$tmp" ]; then
	cat "$tmp"
	exit 0
fi
printf '.TH STARPU_GEMM 1 "" "starpu-gemm %s" "User Commands"\n' "$version"
printf '.SH NAME\nstarpu_gemm \\- %s\n' "$name"
printf '.SH SYNOPSIS\n.B mpirun\n\\-np R\n.B starpu_gemm\n[options]\n'
printf '.SH DESCRIPTION\n'
if "$driver" --help >"$tmp" 2>/dev/null && [ -s "$tmp" ]; then
	# Verbatim: backslashes doubled, lines starting with . or ' protected.
	printf '.nf\n'
	sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/" "$tmp"
	printf '.fi\n'
else
	printf 'Run \\fBstarpu_gemm \\-\\-help\\fR for the options and their defaults.\n'
fi
printf '.SH SEE ALSO\nThe README.md of starpu-gemm; \\fBmpirun\\fR(1).\n'
