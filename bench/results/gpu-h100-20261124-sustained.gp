# Made by bench/report.py; run: gnuplot gpu-h100-20261124-sustained.gp
set terminal pngcairo noenhanced size 900,600
set output 'gpu-h100-20261124-sustained.png'
set title 'DGEMM'
set xlabel 'n'
set ylabel 'TFLOP/s'
set key outside below
set grid
set datafile missing 'NaN'
set logscale x 2
set yrange [0:*]
set xrange [7123.48:37683.2]
set xtics (8192, 16384, 32768)
plot 'gpu-h100-20261124-sustained.dat' using 1:2 with linespoints lw 2 title 'cublas-peak', \
     'gpu-h100-20261124-sustained.dat' using 1:3 with linespoints lw 2 title 'auto-G1', \
     'gpu-h100-20261124-sustained.dat' using 1:4 with linespoints lw 2 title 'limit-G1', \
     'gpu-h100-20261124-sustained.dat' using 1:5 with linespoints lw 2 title 'limit-nothrottle-G1', \
     'gpu-h100-20261124-sustained.dat' using 1:6 with linespoints lw 2 title 'shared-2r'
