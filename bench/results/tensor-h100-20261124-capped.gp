# Made by bench/report.py; run: gnuplot tensor-h100-20261124-capped.gp
set terminal pngcairo noenhanced size 900,600
set output 'tensor-h100-20261124-capped.png'
set title 'DGEMM'
set xlabel 'n'
set ylabel 'TFLOP/s'
set key outside below
set grid
set datafile missing 'NaN'
set logscale x 2
set yrange [0:*]
set xrange [7123.48:75366.4]
set xtics (8192, 16384, 49152, 65536)
plot 'tensor-h100-20261124-capped.dat' using 1:2 with linespoints lw 2 title 'ceiling-b', \
     'tensor-h100-20261124-capped.dat' using 1:3 with linespoints lw 2 title 'ceiling-h', \
     'tensor-h100-20261124-capped.dat' using 1:4 with linespoints lw 2 title 'ceiling-t', \
     'tensor-h100-20261124-capped.dat' using 1:5 with linespoints lw 2 title 'ceiling-s', \
     'tensor-h100-20261124-capped.dat' using 1:6 with linespoints lw 2 title 'ceiling-d', \
     'tensor-h100-20261124-capped.dat' using 1:7 with linespoints lw 2 title 'bf16-limit', \
     'tensor-h100-20261124-capped.dat' using 1:8 with linespoints lw 2 title 'fp16-limit', \
     'tensor-h100-20261124-capped.dat' using 1:9 with linespoints lw 2 title 'bf16-nothrottle'
