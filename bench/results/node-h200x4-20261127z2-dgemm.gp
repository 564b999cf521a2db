# Made by bench/report.py; run: gnuplot node-h200x4-20261127z2-dgemm.gp
set terminal pngcairo noenhanced size 900,600
set output 'node-h200x4-20261127z2-dgemm.png'
set title 'DGEMM, one node of 4 H200, ranks x GPUs each (4 x cuBLAS peak: 208.5 TFLOP/s; call Z2)'
set xlabel 'n'
set ylabel 'TFLOP/s'
set key outside below
set grid
set datafile missing 'NaN'
set logscale x 2
set yrange [0:*]
set xrange [28493.9:75366.4]
set xtics (32768, 65536)
plot 'node-h200x4-20261127z2-dgemm.dat' using 1:2 with linespoints lw 2 title '1x4', \
     'node-h200x4-20261127z2-dgemm.dat' using 1:3 with linespoints lw 2 title '4x1', \
     'node-h200x4-20261127z2-dgemm.dat' using 1:4 with linespoints lw 2 title '2x2', \
     'node-h200x4-20261127z2-dgemm.dat' using 1:5 with linespoints lw 2 title '2x2-own-node'
