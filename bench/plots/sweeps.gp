set terminal pngcairo size 1300,520 font ",10"
set logscale x 2
set grid
set xlabel "tile size (bytes)"
set key left top
if (exists("sg")) {
  set output out.'/scatter_gather.png'
  set multiplot layout 1,2 title "scatter / gather (papers' Fig. 10/11): everything on rank 0 <-> distributed"
  set ylabel "bandwidth, Eq. (3) (GB/s)"
  plot dat.'/scatter_gather.dat' index 0 using 1:2 w lp title "scatter redist", '' index 0 using 1:4 w lp dt 2 title "scatter pdgemr2d", \
       '' index 1 using 1:2 w lp title "gather redist", '' index 1 using 1:4 w lp dt 2 title "gather pdgemr2d"
  set ylabel "efficiency (%)"
  plot dat.'/scatter_gather.dat' index 0 using 1:3 w lp title "scatter", '' index 1 using 1:3 w lp title "gather"
  unset multiplot
}
if (exists("rnd")) {
  set output out.'/random.png'
  set multiplot layout 1,2 title "random vs 2-D block-cyclic (papers' Fig. 12), same tiles"
  set ylabel "bandwidth, Eq. (3) (GB/s)"
  plot dat.'/random.dat' index 0 using 1:2 w lp title "2DBC -> 2DBC", '' index 1 using 1:2 w lp title "random -> random"
  set ylabel "efficiency (%)"
  plot dat.'/random.dat' index 0 using 1:3 w lp title "2DBC", '' index 1 using 1:3 w lp title "random"
  unset multiplot
}
