set terminal pngcairo size 1000,450 font ",10"
set output "sim-predictions.png"
set multiplot layout 1,2 title "starpu\\_gemm simulated (StarPU+SimGrid, H200 models; 1 node of 1-8 GPUs, then nodes of 4 GPUs over 200 or 1600 Gb/s)"
set logscale xy 2
set xlabel "GPUs"; set ylabel "TFLOP/s"; set key top left; set grid
one = system("awk '$1 == \"strong\" && $2 == 1 { print $4; exit }' sim-predictions.dat")
plot "sim-predictions.dat" using (strcol(1) eq "strong" && $7 != 1600 ? $2 : 1/0):4 with linespoints title "strong (one n), 200 Gb/s",      "" using (strcol(1) eq "strong" && $7 == 1600 ? $2 : 1/0):4 with linespoints title "strong, 1600 Gb/s",      "" using (strcol(1) eq "weak" && $7 != 1600 ? $2 : 1/0):4 with linespoints title "weak (same memory per GPU), 200 Gb/s",      "" using (strcol(1) eq "weak" && $7 == 1600 ? $2 : 1/0):4 with linespoints title "weak, 1600 Gb/s",      (one + 0) * x with lines dashtype 2 title "ideal (1 GPU x GPUs)"
unset logscale y; set ylabel "efficiency (per-GPU TFLOP/s / 1 GPU)"; set yrange [0:1.1]
plot "sim-predictions.dat" using (strcol(1) eq "strong" && $7 != 1600 ? $2 : 1/0):6 with linespoints title "strong, 200",      "" using (strcol(1) eq "strong" && $7 == 1600 ? $2 : 1/0):6 with linespoints title "strong, 1600",      "" using (strcol(1) eq "weak" && $7 != 1600 ? $2 : 1/0):6 with linespoints title "weak, 200",      "" using (strcol(1) eq "weak" && $7 == 1600 ? $2 : 1/0):6 with linespoints title "weak, 1600"
unset multiplot
