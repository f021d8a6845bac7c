# gnuplot -e "dat='DIR'; out='DIR'" categories.gp
set terminal pngcairo size 1300,520 font ",10"
set output out.'/categories.png'
set multiplot layout 1,2 title "redist, nine categories (papers' Fig. 9), 2 ranks, tile storage"
set logscale x 2
set xlabel "source tile size (bytes)"
set key left top font ",8"
set grid
set ylabel "achieved bandwidth, Eq. (3) (GB/s)"
plot for [i=0:8] dat.'/categories_bw.dat' index i using 1:2 with linespoints title sprintf("cat %d", i)
set ylabel "efficiency = Eq. (4) time / achieved time (%)"
set key right bottom
plot for [i=0:8] dat.'/categories_eff.dat' index i using 1:2 with linespoints title sprintf("cat %d", i), \
     80 with lines dt 2 lc rgb "black" title "80 %"
unset multiplot
set output out.'/categories_vs_pdgemr2d.png'
set terminal pngcairo size 800,520 font ",10"
set title "nine categories: redist (ScaLAPACK storage) vs pdgemr2d, GB/s"
set ylabel "achieved bandwidth (GB/s)"
set key left top font ",8"
plot for [i=0:8] dat.'/categories_bw.dat' index i using 1:3 with linespoints lc i+1 title sprintf("redist cat %d", i), \
     for [i=0:8] dat.'/categories_bw.dat' index i using 1:4 with lines dt 3 lc i+1 notitle
