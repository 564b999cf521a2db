# Made by bench/report.py; run: gnuplot arrays-20261127-065300.gp
set terminal pngcairo noenhanced size 900,600
set output 'arrays-20261127-065300.png'
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
plot 'arrays-20261127-065300.dat' using 1:2 with linespoints lw 2 title 'driver', \
     'arrays-20261127-065300.dat' using 1:3 with linespoints lw 2 title 'gemm-pageable', \
     'arrays-20261127-065300.dat' using 1:4 with linespoints lw 2 title 'preload'
