# Made by bench/report.py; run: gnuplot arrays-h100-20261124-final.gp
set terminal pngcairo noenhanced size 900,600
set output 'arrays-h100-20261124-final.png'
set title 'DGEMM from host arrays, one H100, n = 32768 and 49152'
set xlabel 'n'
set ylabel 'TFLOP/s'
set key outside below
set grid
set datafile missing 'NaN'
set logscale x 2
set yrange [0:*]
set xrange [28493.9:56524.8]
set xtics (32768, 49152)
plot 'arrays-h100-20261124-final.dat' using 1:2 with linespoints lw 2 title 'driver', \
     'arrays-h100-20261124-final.dat' using 1:3 with linespoints lw 2 title 'gemm-pinned', \
     'arrays-h100-20261124-final.dat' using 1:4 with linespoints lw 2 title 'gemm-pageable', \
     'arrays-h100-20261124-final.dat' using 1:5 with linespoints lw 2 title 'xt-pinned', \
     'arrays-h100-20261124-final.dat' using 1:6 with linespoints lw 2 title 'xt-pageable', \
     'arrays-h100-20261124-final.dat' using 1:7 with linespoints lw 2 title 'preload', \
     'arrays-h100-20261124-final.dat' using 1:8 with linespoints lw 2 title 'scalapack-256', \
     'arrays-h100-20261124-final.dat' using 1:9 with linespoints lw 2 title 'scalapack-4096'
