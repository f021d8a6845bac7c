# gnuplot -e "dat='DIR'; out='DIR'; ttl='...'" threads.gp
set terminal pngcairo size 900,520 font ",10"
set output out.'/threads.png'
set termoption noenhanced
set title "threads: 1 rank, the local move M², 256² -> 100² tiles\n".ttl
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set grid ytics
set key left top font ",8"
set ylabel "seconds (median)"
set yrange [0:*]
plot dat.'/threads.dat' using 2:xtic(1) title "redist (tile storage)", \
     '' using 3 title "redist (ScaLAPACK storage)", \
     '' using 4 title "pdgemr2d (1 thread)"
