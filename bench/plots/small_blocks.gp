# gnuplot -e "dat='DIR'; out='DIR'" small_blocks.gp
set terminal pngcairo size 1300,900 font ",10"
set output out.'/small_blocks.png'
set termoption noenhanced
load dat.'/small_blocks_vars.gp'  # n1, n2: the matrix extents of the two series
set multiplot layout 2,2 title sprintf("small blocks, 2 ranks, ScaLAPACK storage, 1x2 -> 2x1: %d² nb -> nb (sweep); %d² nb -> nb+1", n1, n2)
set grid
set key left top font ",8"
set xlabel "source block nb"
set xrange [0.5:16.5]
set logscale y
set ylabel "median run time (s)"
plot dat.'/small_blocks_sweep.dat' using 2:3 w lp pt 7 title sprintf("redist, %d² nb -> nb", n1), \
     '' using 2:4 w lp pt 6 dt 2 title sprintf("pdgemr2d, %d²", n1), \
     dat.'/small_blocks_4000.dat' using 2:3 w lp pt 5 title sprintf("redist, %d² nb -> nb+1", n2), \
     '' using 2:4 w lp pt 4 dt 2 title sprintf("pdgemr2d, %d²", n2)
unset logscale y
set ylabel "speedup = pdgemr2d / redist"
set yrange [0:*]
plot dat.'/small_blocks_sweep.dat' using 2:5 w lp pt 7 title sprintf("%d² nb -> nb", n1), \
     dat.'/small_blocks_4000.dat' using 2:5 w lp pt 5 title sprintf("%d² nb -> nb+1", n2), \
     2 w l dt 2 lc rgb "black" title "target 2x"
set yrange [*:*]
set logscale y
set ylabel "Redistributor construction (s)"
plot dat.'/small_blocks_sweep.dat' using 2:6 w lp pt 7 title sprintf("%d²", n1), \
     dat.'/small_blocks_4000.dat' using 2:6 w lp pt 5 title sprintf("%d²", n2), \
     0.2 w l dt 2 lc rgb "black" title "target 0.2 s (2000², 1x1)"
set ylabel "MiB per rank (max over ranks)"
plot dat.'/small_blocks_sweep.dat' using 2:7 w lp pt 7 title "plan memory_bytes()", \
     '' using 2:8 w lp pt 9 title "peak RSS growth, construction", \
     '' using 2:9 w lp pt 11 title "peak RSS growth, construction + run", \
     '' using 2:10 w lp pt 13 title "process peak RSS (matrices included)", \
     '' using 2:12 w lp pt 6 dt 2 title "pdgemr2d process peak RSS", \
     244.1 w l dt 2 lc rgb "black" title "256 MB"
unset multiplot
