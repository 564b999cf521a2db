# Made by bench/cpu.sh; run: gnuplot cpu-sweep-20261123-113312.gp
set terminal pngcairo noenhanced size 900,600
set output 'cpu-sweep-20261123-113312.png'
set title 'starpu_gemm DGEMM N=4096, 1 rank x 2 workers (vm)'
set xlabel 'tile'
set ylabel 'GFLOP/s'
set key right bottom
set grid
set datafile missing 'NaN'
set logscale x 2
set yrange [0:*]
set xtics (256, 512, 1024)
plot 'cpu-sweep-20261123-113312.dat' using 1:2 with linespoints lw 2 title 'eager', \
     'cpu-sweep-20261123-113312.dat' using 1:3 with linespoints lw 2 title 'lws', \
     'cpu-sweep-20261123-113312.dat' using 1:4 with linespoints lw 2 title 'dmda', \
     'cpu-sweep-20261123-113312.dat' using 1:5 with linespoints lw 2 title 'dmdas'
