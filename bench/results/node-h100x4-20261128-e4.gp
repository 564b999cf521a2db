# Made by bench/report.py; run: gnuplot node-h100x4-20261128-e4.gp
set terminal pngcairo noenhanced size 900,600
set output 'node-h100x4-20261128-e4.png'
set title 'DGEMM on the GPUs of one node (issue 27), host-resident matrices, 4 GPUs'
set xlabel 'n'
set ylabel 'TFLOP/s'
set key outside below
set grid
set datafile missing 'NaN'
set logscale x 2
set yrange [0:*]
set xrange [28493.9:75366.4]
set xtics (32768, 65536)
plot 'node-h100x4-20261128-e4.dat' using 1:2 with linespoints lw 2 title 'cublas-peak', \
     'node-h100x4-20261128-e4.dat' using 1:3 with linespoints lw 2 title '1x4', \
     'node-h100x4-20261128-e4.dat' using 1:4 with linespoints lw 2 title '4x1', \
     'node-h100x4-20261128-e4.dat' using 1:5 with linespoints lw 2 title 'ceiling-b', \
     'node-h100x4-20261128-e4.dat' using 1:6 with linespoints lw 2 title 'bf16-1x4'
