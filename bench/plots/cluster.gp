# gnuplot -e "dat='DIR'; out='DIR'; ttl='...'" cluster.gp (data from cluster.py --plots)
# cluster.png: per topology, link utilisation (bound / median time) of redist and pdgemr2d,
# and pdgemr2d / redist, for cases a-d at each link rate. cluster_relabel.png: bytes between
# nodes for every pair of grids where the labels as given, flat relabeling and node-aware
# relabeling differ.
set terminal pngcairo size 1500,800 font ",9"
set output out.'/cluster.png'
set termoption noenhanced
set multiplot layout 2,3 title "cluster: cases a-d on simulated nodes (scripts/cluster.sh, tbf-shaped links), ScaLAPACK storage; ".ttl
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set grid ytics
set xtics rotate by -45 font ",8"
set key below font ",8"
do for [t in "2x1 2x2 3x1"] {
  set title t." (nodes x ranks per node); x: case, link Gbit/s"
  set ylabel "link bound / median time (%)"
  set yrange [0:120]
  plot dat.'/cluster_'.t.'.dat' using 2:xtic(1) title "redist", \
       '' using 3 title "pdgemr2d", \
       95 with lines dt 2 lc rgb "black" title "95 %", \
       85 with lines dt 3 lc rgb "gray40" title "85 %"
}
do for [t in "2x1 2x2 3x1"] {
  set title t.": pdgemr2d median / redist median"
  set ylabel "ratio"
  set yrange [0:*]
  plot dat.'/cluster_'.t.'.dat' using 4:xtic(1) title "pdgemr2d / redist", \
       2 with lines dt 2 lc rgb "black" title "2x"
}
unset multiplot

set terminal pngcairo size 1500,420 font ",9"
set output out.'/cluster_relabel.png'
set termoption noenhanced
set multiplot layout 1,3 title "bytes between nodes for every pair of grids (cases a-d at standard extents), where labels as given, flat relabeling (best_relabeling) and node-aware (best_node_relabeling) differ"
do for [t in "2x1 2x2 3x1"] {
  set title t." (nodes x ranks per node)"
  set ylabel "MB between nodes (all links)"
  set yrange [0:*]
  plot dat.'/relabel_'.t.'.dat' using 2:xtic(1) title "as given", \
       '' using 3 title "flat", \
       '' using 4 title "node-aware"
}
unset multiplot
