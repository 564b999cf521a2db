#!/usr/bin/env bash
# The prediction table and plot from scripts/simgrid/predict.sh's CSV (columns read by name):
#   scripts/simgrid/report.sh bench/results/sim-predictions.csv
# writes the same name with .md (table), .dat, .gp and .png (gnuplot, when installed).
# Efficiency: TFLOP/s per GPU over one simulated GPU's (the 1-node 1-GPU strong case).
set -euo pipefail
csv=$1
base=${csv%.csv}
# The table: bench/report.py, the one formatter of the project's tables (docs/simulation.md
# shows it, remade by scripts/docs-tables.sh).
python3 "$(dirname "$0")/../../bench/report.py" --kit sim --markdown "$csv" > "$base.md"
# The plot's data: one series per kind and network, each contiguous (gnuplot breaks a line at a
# row another series owns); a one-node row belongs to the series of every network.
awk -F, -v dat="$base.dat" '
  NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
  { rows[NR] = $0; nets[("net_gbps" in c) ? $c["net_gbps"] : 200] = 1 }
  $c["kind"] == "strong" && $c["gpus"] == 1 { one = $c["gflops"] / 1000 }
  END {
    print "# kind gpus n tflops per_gpu efficiency net_gbps" > dat
    for (r = 2; r <= NR; r++) {
      split(rows[r], f, ",")
      t = f[c["gflops"]] / 1000; g = f[c["gpus"]]; pg = t / g
      eff = one > 0 ? sprintf("%.2f", pg / one) : "-"
      net = ("net_gbps" in c) ? f[c["net_gbps"]] : 200
      for (n2 in nets) if (f[c["nodes"]] == 1 || n2 == net)
        series[++ns] = sprintf("%s %d %d %.3f %.3f %s %s", f[c["kind"]], g, f[c["M"]], t, pg,
                               (eff == "-" ? "nan" : eff), n2)
    }
    close(dat)
    for (i = 1; i <= ns; i++) print series[i] | "sort -k1,1 -k7,7n -k2,2n >> \"" dat "\""
    close("sort -k1,1 -k7,7n -k2,2n >> \"" dat "\"")
  }' "$csv"
cat > "$base.gp" <<GP
set terminal pngcairo size 1000,450 font ",10"
set output "$(basename "$base").png"
set multiplot layout 1,2 title "starpu\\\\_gemm simulated (StarPU+SimGrid, H200 models; 1 node of 1-8 GPUs, then nodes of 4 GPUs over 200 or 1600 Gb/s)"
set logscale xy 2
set xlabel "GPUs"; set ylabel "TFLOP/s"; set key top left; set grid
one = system("awk '\$1 == \"strong\" && \$2 == 1 { print \$4; exit }' $(basename "$base").dat")
plot "$(basename "$base").dat" using (strcol(1) eq "strong" && \$7 != 1600 ? \$2 : 1/0):4 with linespoints title "strong (one n), 200 Gb/s", \
     "" using (strcol(1) eq "strong" && \$7 == 1600 ? \$2 : 1/0):4 with linespoints title "strong, 1600 Gb/s", \
     "" using (strcol(1) eq "weak" && \$7 != 1600 ? \$2 : 1/0):4 with linespoints title "weak (same memory per GPU), 200 Gb/s", \
     "" using (strcol(1) eq "weak" && \$7 == 1600 ? \$2 : 1/0):4 with linespoints title "weak, 1600 Gb/s", \
     (one + 0) * x with lines dashtype 2 title "ideal (1 GPU x GPUs)"
unset logscale y; set ylabel "efficiency (per-GPU TFLOP/s / 1 GPU)"; set yrange [0:1.1]
plot "$(basename "$base").dat" using (strcol(1) eq "strong" && \$7 != 1600 ? \$2 : 1/0):6 with linespoints title "strong, 200", \
     "" using (strcol(1) eq "strong" && \$7 == 1600 ? \$2 : 1/0):6 with linespoints title "strong, 1600", \
     "" using (strcol(1) eq "weak" && \$7 != 1600 ? \$2 : 1/0):6 with linespoints title "weak, 200", \
     "" using (strcol(1) eq "weak" && \$7 == 1600 ? \$2 : 1/0):6 with linespoints title "weak, 1600"
unset multiplot
GP
if command -v gnuplot > /dev/null; then
  (cd "$(dirname "$base")" && gnuplot "$(basename "$base").gp")
fi
echo "wrote $base.md, $base.dat, $base.gp$(command -v gnuplot > /dev/null && echo ", $base.png")"
