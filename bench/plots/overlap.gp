# gnuplot -e "dat='DIR'; out='DIR'" overlap.gp
set terminal pngcairo size 1300,520 font ",10"
set output out.'/overlap.png'
set termoption noenhanced
set multiplot layout 1,2 title "overlap: start(), compute ≈ t_move with test() every ≈ 100 µs, wait(); 2 ranks, ScaLAPACK storage"
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set grid ytics
set key left top font ",8"
set xtics font ",8"
set ylabel "seconds (median)"
plot dat.'/overlap.dat' using 2:xtic(1) title "t_move alone", \
     '' using 3 title "t_compute alone", \
     '' using 4 title "t_total (overlapped)"
set ylabel "t_total / max(t_compute, t_move)"
set yrange [0:*]
plot dat.'/overlap.dat' using 5:xtic(1) title "ratio", \
     1.2 with lines dt 2 lc rgb "black" title "target 1.2", \
     2 with lines dt 3 lc rgb "gray" title "no overlap (2)"
unset multiplot
