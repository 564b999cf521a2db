# Made by bench/gpu.sh; run: gnuplot gpu-h200x2-20261124.gp
set terminal pngcairo noenhanced size 900,600
set output 'gpu-h200x2-20261124.png'
set title 'DGEMM on vm, host-resident matrices, C back on the host'
set xlabel 'n'
set ylabel 'TFLOP/s per GPU'
set key outside below maxrows 4
set grid
set datafile missing 'NaN'
set yrange [0:*]
plot 'gpu-h200x2-20261124.dat' using 1:2 with linespoints lw 2 title 'cuBLAS_peak', \
     'gpu-h200x2-20261124.dat' using 1:3 with linespoints lw 2 title 'cuBLASXt_G1', \
     'gpu-h200x2-20261124.dat' using 1:4 with linespoints lw 2 title 'cuBLASXt_G2', \
     'gpu-h200x2-20261124.dat' using 1:5 with linespoints lw 2 title 'auto_G2', \
     'gpu-h200x2-20261124.dat' using 1:6 with linespoints lw 2 title '2_ranks_x_1_GPU'
