# Made by bench/report.py; run: gnuplot arrays-h100x4-20261128-e5.gp
set terminal pngcairo noenhanced size 900,600
set output 'arrays-h100x4-20261128-e5.png'
set title 'DGEMM from host arrays, 4 GPU(s): starpu_gemm_gemm vs the driver and cuBLASXt'
set xlabel 'n'
set ylabel 'TFLOP/s'
set key outside below
set grid
set datafile missing 'NaN'
set logscale x 2
set yrange [0:*]
set xrange [42740.9:56524.8]
set xtics (49152)
plot 'arrays-h100x4-20261128-e5.dat' using 1:2 with linespoints lw 2 title 'driver', \
     'arrays-h100x4-20261128-e5.dat' using 1:3 with linespoints lw 2 title 'scalapack-ranks-4096', \
     'arrays-h100x4-20261128-e5.dat' using 1:4 with linespoints lw 2 title 'scalapack-ranks-256'
