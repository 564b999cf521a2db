# Made by bench/report.py; run: gnuplot gpu-h200-20261126b.gp
set terminal pngcairo noenhanced size 900,600
set output 'gpu-h200-20261126b.png'
set title 'DGEMM on one H200, host-resident matrices, C back on the host (2026-11-26)'
set xlabel 'n'
set ylabel 'TFLOP/s'
set key outside below
set grid
set datafile missing 'NaN'
set logscale x 2
set yrange [0:*]
set xrange [7123.48:37683.2]
set xtics (8192, 16384, 32768)
plot 'gpu-h200-20261126b.dat' using 1:2 with linespoints lw 2 title 'cublas-peak', \
     'gpu-h200-20261126b.dat' using 1:3 with linespoints lw 2 title 'auto-G1', \
     'gpu-h200-20261126b.dat' using 1:4 with linespoints lw 2 title 'home-G1', \
     'gpu-h200-20261126b.dat' using 1:5 with linespoints lw 2 title 'shared-2r', \
     'gpu-h200-20261126b.dat' using 1:6 with linespoints lw 2 title 'shared-mps'
