# gnuplot doors-h200x4-20261128.gp (from bench/results): doors-h200x4-20261128.png
set terminal pngcairo size 900,560
set output "doors-h200x4-20261128.png"
set title "Doors on 4 x H200, DGEMM n = 49152: x the driver (1 rank x 4 GPUs), issue 29"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set yrange [0:1.05]
set ylabel "x driver"
set grid ytics
set key outside bottom center horizontal
set arrow from graph 0, first 0.9 to graph 1, first 0.9 nohead dt 2 lc rgb "red"
set label "target 0.90: one call, preload" at graph 0.01, first 0.92 front tc rgb "red"
set arrow from graph 0, first 0.8 to graph 1, first 0.8 nohead dt 3 lc rgb "dark-red"
set label "target 0.80: drop-in" at graph 0.01, first 0.82 front tc rgb "dark-red"
plot "doors-h200x4-20261128.dat" using 2:xtic(1) title "before (copiers over every core, call X2)", \
     "" using 3 title "after (copiers off StarPU's cores, call X3)"
