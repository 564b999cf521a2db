# Made by bench/report.py; run: gnuplot node-h200x4-20261127g.gp
set terminal pngcairo noenhanced size 900,600
set output 'node-h200x4-20261127g.png'
set title '1 node of 4 x H200: relays between the GPUs (issue 27)'
set xlabel 'n'
set ylabel 'TFLOP/s'
set key outside below
set grid
set datafile missing 'NaN'
set logscale x 2
set yrange [0:*]
set xrange [28493.9:75366.4]
set xtics (32768, 65536)
plot 'node-h200x4-20261127g.dat' using 1:2 with linespoints lw 2 title 'cublas-peak', \
     'node-h200x4-20261127g.dat' using 1:3 with linespoints lw 2 title '1x4', \
     'node-h200x4-20261127g.dat' using 1:4 with linespoints lw 2 title '2x2', \
     'node-h200x4-20261127g.dat' using 1:5 with linespoints lw 2 title '2x2-own-node', \
     'node-h200x4-20261127g.dat' using 1:6 with linespoints lw 2 title 'ceiling-b', \
     'node-h200x4-20261127g.dat' using 1:7 with linespoints lw 2 title 'bf16-1x4', \
     'node-h200x4-20261127g.dat' using 1:8 with linespoints lw 2 title '1x4-relays-off', \
     'node-h200x4-20261127g.dat' using 1:9 with linespoints lw 2 title '2x2-relays-off'
