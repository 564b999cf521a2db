# Made by bench/report.py; run: gnuplot gpu-h200x2-20261124.gp
set terminal pngcairo noenhanced size 900,600
set output 'gpu-h200x2-20261124.png'
set title 'DGEMM on two H200, host-resident matrices, C back on the host'
set xlabel 'n'
set ylabel 'TFLOP/s'
set key outside below
set grid
set datafile missing 'NaN'
set logscale x 2
set yrange [0:*]
set xrange [28493.9:75366.4]
set xtics (32768, 65536)
plot 'gpu-h200x2-20261124.dat' using 1:2 with linespoints lw 2 title 'cublas-peak', \
     'gpu-h200x2-20261124.dat' using 1:3 with linespoints lw 2 title 'auto-G2', \
     'gpu-h200x2-20261124.dat' using 1:4 with linespoints lw 2 title 'xt-G1-b2048', \
     'gpu-h200x2-20261124.dat' using 1:5 with linespoints lw 2 title 'xt-G1-b4096', \
     'gpu-h200x2-20261124.dat' using 1:6 with linespoints lw 2 title 'xt-G1-b8192', \
     'gpu-h200x2-20261124.dat' using 1:7 with linespoints lw 2 title 'xt-G2-b2048', \
     'gpu-h200x2-20261124.dat' using 1:8 with linespoints lw 2 title 'xt-G2-b4096', \
     'gpu-h200x2-20261124.dat' using 1:9 with linespoints lw 2 title 'xt-G2-b8192', \
     'gpu-h200x2-20261124.dat' using 1:10 with linespoints lw 2 title 'ranks-2'
