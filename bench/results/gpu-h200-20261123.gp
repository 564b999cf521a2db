# Made by bench/report.py; run: gnuplot gpu-h200-20261123.gp
set terminal pngcairo noenhanced size 900,600
set output 'gpu-h200-20261123.png'
set title 'DGEMM on one H200, host-resident matrices, C back on the host'
set xlabel 'n'
set ylabel 'TFLOP/s'
set key outside below
set grid
set datafile missing 'NaN'
set logscale x 2
set yrange [0:*]
set xrange [14247:56524.8]
set xtics (16384, 32768, 49152)
plot 'gpu-h200-20261123.dat' using 1:2 with linespoints lw 2 title 'cublas-peak', \
     'gpu-h200-20261123.dat' using 1:3 with linespoints lw 2 title 'auto-G1', \
     'gpu-h200-20261123.dat' using 1:4 with linespoints lw 2 title 'xt-G1-b2048', \
     'gpu-h200-20261123.dat' using 1:5 with linespoints lw 2 title 'xt-G1-b4096', \
     'gpu-h200-20261123.dat' using 1:6 with linespoints lw 2 title 'xt-G1-b8192', \
     'gpu-h200-20261123.dat' using 1:7 with linespoints lw 2 title 'limit-G1', \
     'gpu-h200-20261123.dat' using 1:8 with linespoints lw 2 title 'limit-nothrottle-G1', \
     'gpu-h200-20261123.dat' using 1:9 with linespoints lw 2 title 'nothrottle-G1'
