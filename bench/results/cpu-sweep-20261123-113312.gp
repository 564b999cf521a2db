# Made by bench/report.py; run: gnuplot cpu-sweep-20261123-113312.gp
set terminal pngcairo noenhanced size 900,600
set output 'cpu-sweep-20261123-113312.png'
set title 'Scheduler x tile, N=4096, 1 rank x 2 workers'
set xlabel 'n'
set ylabel 'GFLOP/s'
set key outside below
set grid
set datafile missing 'NaN'
set logscale x 2
set yrange [0:*]
set xrange [3561.74:4710.4]
set xtics (4096)
plot 'cpu-sweep-20261123-113312.dat' using 1:2 with linespoints lw 2 title 'openblas', \
     'cpu-sweep-20261123-113312.dat' using 1:3 with linespoints lw 2 title 'eager-t256', \
     'cpu-sweep-20261123-113312.dat' using 1:4 with linespoints lw 2 title 'eager-t512', \
     'cpu-sweep-20261123-113312.dat' using 1:5 with linespoints lw 2 title 'eager-t1024', \
     'cpu-sweep-20261123-113312.dat' using 1:6 with linespoints lw 2 title 'lws-t256', \
     'cpu-sweep-20261123-113312.dat' using 1:7 with linespoints lw 2 title 'lws-t512', \
     'cpu-sweep-20261123-113312.dat' using 1:8 with linespoints lw 2 title 'lws-t1024', \
     'cpu-sweep-20261123-113312.dat' using 1:9 with linespoints lw 2 title 'dmda-t256', \
     'cpu-sweep-20261123-113312.dat' using 1:10 with linespoints lw 2 title 'dmda-t512', \
     'cpu-sweep-20261123-113312.dat' using 1:11 with linespoints lw 2 title 'dmda-t1024', \
     'cpu-sweep-20261123-113312.dat' using 1:12 with linespoints lw 2 title 'dmdas-t256', \
     'cpu-sweep-20261123-113312.dat' using 1:13 with linespoints lw 2 title 'dmdas-t512', \
     'cpu-sweep-20261123-113312.dat' using 1:14 with linespoints lw 2 title 'dmdas-t1024'
