set terminal pngcairo size 900,520 font ",10"
set output out.'/standard.png'
set title "standard cases, 2 ranks: median time (lower is better)"
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set ylabel "seconds"
set grid ytics
set key left top
plot dat.'/standard.dat' using 2:xtic(1) title "redist (tile storage)", \
     '' using 3 title "redist (ScaLAPACK storage)", \
     '' using 6 title "redist (ScaLAPACK storage, node-shared source)", \
     '' using 7 title "redist (ScaLAPACK storage, node-shared target: pushed)", \
     '' using 4 title "pdgemr2d", \
     '' using 5 title "Eq. (4) time"
