# Made by bench/report.py; run: gnuplot tensor-h200-20261126-all.gp
set terminal pngcairo noenhanced size 900,600
set output 'tensor-h200-20261126-all.png'
set title 'Tensor-core GEMM from host memory, 1 GPU, against its roofline'
set xlabel 'n'
set ylabel 'TFLOP/s'
set key outside below
set grid
set datafile missing 'NaN'
set logscale x 2
set yrange [0:*]
set xrange [3561.74:75366.4]
set xtics (4096, 8192, 16384, 49152, 65536)
plot 'tensor-h200-20261126-all.dat' using 1:2 with linespoints lw 2 title 'ceiling-b', \
     'tensor-h200-20261126-all.dat' using 1:3 with linespoints lw 2 title 'ceiling-h', \
     'tensor-h200-20261126-all.dat' using 1:4 with linespoints lw 2 title 'ceiling-t', \
     'tensor-h200-20261126-all.dat' using 1:5 with linespoints lw 2 title 'ceiling-s', \
     'tensor-h200-20261126-all.dat' using 1:6 with linespoints lw 2 title 'ceiling-d', \
     'tensor-h200-20261126-all.dat' using 1:7 with linespoints lw 2 title 'bf16', \
     'tensor-h200-20261126-all.dat' using 1:8 with linespoints lw 2 title 'fp16', \
     'tensor-h200-20261126-all.dat' using 1:9 with linespoints lw 2 title 'bf16-limit', \
     'tensor-h200-20261126-all.dat' using 1:10 with linespoints lw 2 title 'fp16-limit', \
     'tensor-h200-20261126-all.dat' using 1:11 with linespoints lw 2 title 'bf16-nothrottle', \
     'tensor-h200-20261126-all.dat' using 1:12 with linespoints lw 2 title 'tf32', \
     'tensor-h200-20261126-all.dat' using 1:13 with linespoints lw 2 title 'bf16-beta0', \
     'tensor-h200-20261126-all.dat' using 1:14 with linespoints lw 2 title 'bf16-home', \
     'tensor-h200-20261126-all.dat' using 1:15 with linespoints lw 2 title 'bf16-limit-home'
