# Made by bench/report.py; run: gnuplot cpu-20261127-124053.gp
set terminal pngcairo noenhanced size 900,600
set output 'cpu-20261127-124053.png'
set title 'DGEMM on vm, 2 cores'
set xlabel 'n'
set ylabel 'GFLOP/s'
set key outside below
set grid
set datafile missing 'NaN'
set logscale x 2
set yrange [0:*]
set xrange [1780.87:7065.6]
set xtics (2048, 4096, 6144)
plot 'cpu-20261127-124053.dat' using 1:2 with linespoints lw 2 title 'starpu-1r', \
     'cpu-20261127-124053.dat' using 1:3 with linespoints lw 2 title 'openblas', \
     'cpu-20261127-124053.dat' using 1:4 with linespoints lw 2 title 'starpu-2r-default', \
     'cpu-20261127-124053.dat' using 1:5 with linespoints lw 2 title 'starpu-2r-none', \
     'cpu-20261127-124053.dat' using 1:6 with linespoints lw 2 title 'scalapack-1x2'
