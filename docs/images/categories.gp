# The nine categories of a target tile (Cao et al. 2021
# Fig. 3), as redist numbers them: category = 3 * (min(k_r, 3) - 1) + (min(k_c, 3) - 1).
# Red: one target tile. Black: the source tiles it reads. Labels: the segment roles.
# Regenerate from the repository root:  gnuplot docs/images/categories.gp
set terminal pngcairo size 960,1040 font "Sans,11"
set output "docs/images/categories.png"
unset border; unset tics; unset key
set size ratio -1
set xrange [-1:35]
set yrange [-39:2.5]

# Cut positions (in units from the tile's top or left edge, the tile is 8 units wide) for
# k = 1, 2, 3 pieces: the source boundaries that fall inside the target tile.
cut1(k) = (k == 2) ? 3.5 : 2.5
cut2(k) = 5.5
band(a, k) = (k == 1) ? 1 : (a == 0 ? 0 : (a == k - 1 ? 2 : 1))
role(b) = word("NW N NE W I E SW S SE", b + 1)
# Start of piece a of k along an axis (0..8); the outer source tiles overhang by 1.5.
lo(a, k) = (a == 0) ? 0 : (a == 1 ? cut1(k) : cut2(k))
hi(a, k) = (a == k - 1) ? 8 : (a == 0 ? cut1(k) : cut2(k))
slo(a, k) = (a == 0) ? -1.5 : lo(a, k)
shi(a, k) = (a == k - 1) ? 9.5 : hi(a, k)

obj = 1
do for [cid = 0:8] {
  R = cid / 3; C = cid % 3
  kr = R + 1; kc = C + 1
  x0 = C * 12.0 + 1.5; y0 = -R * 12.5 - 1.5          # top-left corner of the target tile
  # source tiles (black), one per row piece x column piece
  do for [a = 0:kr-1] {
    do for [c = 0:kc-1] {
      set object obj rect from x0 + slo(c, kc) + 0.08, y0 - shi(a, kr) + 0.08 \
          to x0 + shi(c, kc) - 0.08, y0 - slo(a, kr) - 0.08 \
          fs empty border lc rgb "black" lw 1.5 dt 1 front
      obj = obj + 1
      set label sprintf("%s", role(3 * band(a, kr) + band(c, kc))) \
          at x0 + (lo(c, kc) + hi(c, kc)) / 2.0, y0 - (lo(a, kr) + hi(a, kr)) / 2.0 center front \
          font "Sans Bold,12" tc rgb "#1f3a93"
    }
  }
  # the target tile (red)
  set object obj rect from x0, y0 - 8 to x0 + 8, y0 fc rgb "red" \
      fs transparent solid 0.12 border lc rgb "red" lw 3 front
  obj = obj + 1
  set label sprintf("category %d   (k_r = %d, k_c = %d)", cid, kr, kc) \
      at x0 + 4, y0 + 2.3 center font "Sans,11"
}
set label "target tile = red; source tiles = black; segments named by role (rows: N / I / S, columns: W / I / E)" \
    at 17, -38 center font "Sans,10"
plot NaN notitle
