# Made by bench/cpu.sh; run: gnuplot cpu-20261123-113547.gp
set terminal pngcairo noenhanced size 900,600
set output 'cpu-20261123-113547.png'
set title 'DGEMM on vm (2 cores), median of 3 runs'
set xlabel 'N'
set ylabel 'GFLOP/s'
set key right bottom
set grid
set datafile missing 'NaN'
set yrange [0:*]
set xtics (2048, 4096, 6144)
plot 'cpu-20261123-113547.dat' using 1:2 with linespoints lw 2 title 'starpu_gemm, 1 rank x 2 workers', \
     'cpu-20261123-113547.dat' using 1:3 with linespoints lw 2 title 'OpenBLAS dgemm, 2 threads', \
     'cpu-20261123-113547.dat' using 1:4 with linespoints lw 2 title 'starpu_gemm, 2 ranks (1x2) x 1 worker', \
     'cpu-20261123-113547.dat' using 1:5 with linespoints lw 2 title 'ScaLAPACK PDGEMM, 2 ranks (1x2), nb=256'
