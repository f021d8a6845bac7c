# gnuplot -e "dat='DIR'; out='DIR'" network.gp
set terminal pngcairo size 1300,520 font ",10"
set output out.'/network.png'
set termoption noenhanced
set multiplot layout 1,2 title "network: cases a-d, 2 ranks, shared window off, over the run's MPI transport (--mca btl tcp,self)"
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set grid ytics
set key left top font ",8"
set ylabel "seconds (median)"
plot dat.'/network.dat' using 2:xtic(1) title "redist (tile storage)", \
     '' using 3 title "redist (ScaLAPACK storage)", \
     '' using 4 title "pdgemr2d", \
     '' using 5 title "network bound", \
     '' using 6 title "memory bound"
set ylabel "efficiency = max(network, memory bound) / time (%)"
set yrange [0:*]
plot dat.'/network.dat' using 7:xtic(1) title "redist (tile storage)", \
     '' using 8 title "redist (ScaLAPACK storage)", \
     '' using 9 title "pdgemr2d", \
     80 with lines dt 2 lc rgb "black" title "80 %"
unset multiplot
