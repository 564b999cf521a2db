set terminal pngcairo size 1000,450 font ",10"
set output "sim-predictions.png"
set multiplot layout 1,2 title "starpu\\_gemm simulated (StarPU+SimGrid, H200 models; 1 node of 1-8 GPUs, then nodes of 4 GPUs over 200 Gb/s)"
set logscale xy 2
set xlabel "GPUs"; set ylabel "TFLOP/s"; set key top left; set grid
one = system("awk '$1 == \"strong\" && $2 == 1 { print $4 }' sim-predictions.dat")
plot "sim-predictions.dat" using (strcol(1) eq "strong" ? $2 : 1/0):4 with linespoints title "strong scaling (one n)",      "" using (strcol(1) eq "weak" ? $2 : 1/0):4 with linespoints title "weak scaling (same memory per GPU)",      (one + 0) * x with lines dashtype 2 title "ideal (1 GPU x GPUs)"
unset logscale y; set ylabel "efficiency (per-GPU TFLOP/s / 1 GPU)"; set yrange [0:1.1]
plot "sim-predictions.dat" using (strcol(1) eq "strong" ? $2 : 1/0):6 with linespoints title "strong",      "" using (strcol(1) eq "weak" ? $2 : 1/0):6 with linespoints title "weak"
unset multiplot
