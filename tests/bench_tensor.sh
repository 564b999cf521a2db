#!/usr/bin/env bash
# bench/tensor.sh's reporter on a synthetic CSV (tests/tensor-report-sample.csv, made-up
# numbers): each case's roofline bound max(2n^3/ceiling, h2d bytes/rate, d2h bytes/rate)
# with the best ceiling of its precision, the ratios, the acceptance lines and a case that
# did not run.
set -eu
: "${top_srcdir:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$top_srcdir/tests/tensor-report-sample.csv" "$work/t.csv"
out=$("$top_srcdir/bench/tensor.sh" --report "$work/t.csv")
printf '%s\n' "$out"
expect() {
  grep -qF -- "$1" <<<"$out" || { echo "FAIL the report lacks: $1"; exit 1; }
  echo "PASS report: $1"
}
# bf16: compute 2*65536^3/700e12 = 0.804 s beats h2d 34.36e9/50e9 = 0.687: bound 0.804,
# ratio 0.8042/0.893 = 0.901.
expect "bf16              65536   630.000    0.893 |    0.804    0.687    0.344 ->    0.804     700.0 |  0.901 ok"
expect "accept bf16: 0.901 x bound, >= 0.85: MET"
expect "fp16              65536                    |    0.828        -        - ->    0.828     680.0 |      - timeout"
# bf16-limit: link-bound, 50e9/50e9 = 1 s: ratio 0.8; 3 times faster than --no-throttle.
expect "accept bf16-limit: 0.800 x bound, >= 0.80: MET; 3.00 x --no-throttle, >= 2: MET"
expect "accept fp16: - x bound, >= 0.85: not run"
# tf32: 2*49152^3/350e12 = 0.679 s; 0.679/0.880 = 0.771.
expect "accept tf32: 0.771 x bound, >= 0.85: MISSED"
[ -s "$work/t-table.txt" ] || { echo "FAIL no table file"; exit 1; }
echo "PASS the table is written next to the CSV"
