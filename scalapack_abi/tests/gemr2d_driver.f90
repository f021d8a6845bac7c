! A ScaLAPACK program in Fortran, linked with libredist_scalapack ahead of ScaLAPACK:
! PSGEMR2D, PDGEMR2D, PCGEMR2D, PZGEMR2D and PIGEMR2D through the Fortran entries. A lies
! on a P x Q "Row" grid of every process, B on a (np - 1) x 1 "Col" grid that leaves the
! last process out (DESCB(CTXT_) = -1 there); both have RSRC/CSRC and offsets other than
! the first, and ICTXT is a 1 x np grid. Every element of B is checked (f of the source
! index inside the region, the sentinel -1 outside, padding rows included) and A must be
! unchanged. Then PBLAS's PDTRAN, PSTRADD and PZGEADD through their Fortran entries
! (character arguments with gfortran's hidden lengths) on sub-matrices of A's layout:
! C := 2 A^T, the upper triangle of C := 0.5 C + 2 A, C := -C + 2 A^H, every element of C
! checked. Prints "fortran driver: ok" when every element on every process is right.
module checks
  implicit none
  integer, parameter :: m_a = 37, n_a = 29, m_b = 41, n_b = 33
  integer, parameter :: m = 23, n = 17, ia = 5, ja = 3, ib = 9, jb = 11
contains
  ! f(i, j) of the 1-based global index (i, j): distinct and exact in every type.
  double precision function f(i, j)
    integer, intent(in) :: i, j
    f = dble(i - 1) * 4096d0 + dble(j)
  end function

  ! The value element (il, jl) of this process's part of B must hold (-1: the sentinel).
  double precision function want_b(il, jl, descb, myrow, mycol, nprow, npcol)
    integer, intent(in) :: il, jl, descb(9), myrow, mycol, nprow, npcol
    integer :: gi, gj, locr
    integer, external :: indxl2g, numroc
    locr = numroc(descb(3), descb(5), myrow, descb(7), nprow)
    gi = indxl2g(il, descb(5), myrow, descb(7), nprow)
    gj = indxl2g(jl, descb(6), mycol, descb(8), npcol)
    want_b = -1d0
    if (il <= locr .and. gi >= ib .and. gi < ib + m .and. gj >= jb .and. gj < jb + n) &
      want_b = f(gi - ib + ia, gj - jb + ja)
  end function

  double precision function want_a(il, jl, desca, myrow, mycol, nprow, npcol)
    integer, intent(in) :: il, jl, desca(9), myrow, mycol, nprow, npcol
    integer, external :: indxl2g
    want_a = f(indxl2g(il, desca(5), myrow, desca(7), nprow), &
               indxl2g(jl, desca(6), mycol, desca(8), npcol))
  end function

  ! Wrong elements of C (A's layout, sentinel -1) after C := 2 A(3.., 2..)^T into
  ! C(4:13, 5:16) (PDTRAN), its upper triangle C := 0.5 C + 2 A(3.., 2..) (PSTRADD 'U' 'N'),
  ! C := -C + 2 A(3.., 2..)^H (PZGEADD 'C'); A(i, j) = f(i, j), complex f - f i.
  integer function pblas_errors(da, desca, myrow, mycol, nprow, npcol) result(errs)
    integer, intent(in) :: desca(9), myrow, mycol, nprow, npcol
    double precision, intent(in) :: da(*)
    integer, parameter :: mc = 10, nc = 12, ia2 = 3, ja2 = 2, ic = 4, jc = 5
    integer :: il, jl, k, x, y, locr, locc, lld
    integer, external :: indxl2g, numroc
    real, allocatable :: sa(:), sc(:)
    double precision, allocatable :: dc(:)
    complex*16, allocatable :: za(:), zc(:)
    double precision :: a_t, a_n, want_d, want_s
    complex*16 :: want_z
    lld = desca(9)
    locr = numroc(desca(3), desca(5), myrow, desca(7), nprow)
    locc = numroc(desca(4), desca(6), mycol, desca(8), npcol)
    allocate(sa(max(1, lld * locc)), sc(max(1, lld * locc)), dc(max(1, lld * locc)))
    allocate(za(max(1, lld * locc)), zc(max(1, lld * locc)))
    do k = 1, lld * locc
      sa(k) = real(da(k))
      za(k) = dcmplx(da(k), -da(k))
    end do
    sc = -1
    dc = -1
    zc = (-1d0, -1d0)
    call pdtran(mc, nc, 2d0, da, ia2, ja2, desca, 0d0, dc, ic, jc, desca)
    call pstradd('U', 'N', mc, nc, 2.0, sa, ia2, ja2, desca, 0.5, sc, ic, jc, desca)
    call pzgeadd('C', mc, nc, (2d0, 0d0), za, ia2, ja2, desca, (-1d0, 0d0), zc, ic, jc, desca)
    errs = 0
    do jl = 1, locc
      do il = 1, lld
        k = il + (jl - 1) * lld
        x = indxl2g(il, desca(5), myrow, desca(7), nprow) - ic
        y = indxl2g(jl, desca(6), mycol, desca(8), npcol) - jc
        want_d = -1d0
        want_s = -1d0
        want_z = (-1d0, -1d0)
        if (il <= locr .and. x >= 0 .and. x < mc .and. y >= 0 .and. y < nc) then
          a_t = f(ia2 + y, ja2 + x)
          a_n = f(ia2 + x, ja2 + y)
          want_d = 2 * a_t
          if (y >= x) want_s = 2 * a_n - 0.5d0
          want_z = dcmplx(2 * a_t + 1, 2 * a_t + 1)
        end if
        if (dc(k) /= want_d) errs = errs + 1
        if (dble(sc(k)) /= want_s) errs = errs + 1
        if (zc(k) /= want_z) errs = errs + 1
      end do
    end do
  end function
end module

program gemr2d_driver
  use checks
  implicit none
  integer :: me, np, p, q, pb, ictxt, ctxt_a, ctxt_b, info, errs(1)
  integer :: nprow_a, npcol_a, myrow_a, mycol_a, nprow_b, npcol_b, myrow_b, mycol_b
  integer :: locr_a, locc_a, locr_b, locc_b, lld_a, lld_b, desca(9), descb(9), il, jl, k
  integer, external :: numroc
  real, allocatable :: sa(:), sb(:)
  double precision, allocatable :: da(:), db(:)
  complex, allocatable :: ca(:), cb(:)
  complex*16, allocatable :: za(:), zb(:)
  integer, allocatable :: ia_(:), ib_(:)

  call blacs_pinfo(me, np)
  p = int(sqrt(dble(np)))
  do while (mod(np, p) /= 0)
    p = p - 1
  end do
  q = np / p
  pb = max(1, np - 1)
  call blacs_get(-1, 0, ictxt)
  call blacs_gridinit(ictxt, 'Row', 1, np)
  call blacs_get(-1, 0, ctxt_a)
  call blacs_gridinit(ctxt_a, 'Row', p, q)
  call blacs_get(-1, 0, ctxt_b)
  call blacs_gridinit(ctxt_b, 'Col', pb, 1)
  call blacs_gridinfo(ctxt_a, nprow_a, npcol_a, myrow_a, mycol_a)
  call blacs_gridinfo(ctxt_b, nprow_b, npcol_b, myrow_b, mycol_b)

  ! A: 5 x 4 blocks from (p - 1, q - 1); B: 6 x 7 blocks from (pb - 1, 0), 2 spare rows.
  locr_a = numroc(m_a, 5, myrow_a, p - 1, p)
  locc_a = numroc(n_a, 4, mycol_a, q - 1, q)
  lld_a = max(1, locr_a)
  call descinit(desca, m_a, n_a, 5, 4, p - 1, q - 1, ctxt_a, lld_a, info)
  if (myrow_b >= 0) then
    locr_b = numroc(m_b, 6, myrow_b, pb - 1, pb)
    locc_b = numroc(n_b, 7, mycol_b, 0, 1)
    lld_b = max(1, locr_b) + 2
    call descinit(descb, m_b, n_b, 6, 7, pb - 1, 0, ctxt_b, lld_b, info)
  else
    locr_b = 0
    locc_b = 0
    lld_b = 1
    descb = 0
    descb(2) = -1
  end if
  allocate(sa(max(1, lld_a * locc_a)), da(max(1, lld_a * locc_a)), ca(max(1, lld_a * locc_a)))
  allocate(za(max(1, lld_a * locc_a)), ia_(max(1, lld_a * locc_a)))
  allocate(sb(max(1, lld_b * locc_b)), db(max(1, lld_b * locc_b)), cb(max(1, lld_b * locc_b)))
  allocate(zb(max(1, lld_b * locc_b)), ib_(max(1, lld_b * locc_b)))
  do jl = 1, locc_a
    do il = 1, lld_a
      k = il + (jl - 1) * lld_a
      da(k) = want_a(il, jl, desca, myrow_a, mycol_a, p, q)
      sa(k) = real(da(k))
      ca(k) = cmplx(da(k), -da(k))
      za(k) = dcmplx(da(k), -da(k))
      ia_(k) = int(da(k))
    end do
  end do
  sb = -1
  db = -1
  cb = (-1, -1)
  zb = (-1d0, -1d0)
  ib_ = -1

  call psgemr2d(m, n, sa, ia, ja, desca, sb, ib, jb, descb, ictxt)
  call pdgemr2d(m, n, da, ia, ja, desca, db, ib, jb, descb, ictxt)
  call pcgemr2d(m, n, ca, ia, ja, desca, cb, ib, jb, descb, ictxt)
  call pzgemr2d(m, n, za, ia, ja, desca, zb, ib, jb, descb, ictxt)
  call pigemr2d(m, n, ia_, ia, ja, desca, ib_, ib, jb, descb, ictxt)

  errs(1) = 0
  do jl = 1, locc_b
    do il = 1, lld_b
      k = il + (jl - 1) * lld_b
      if (dble(sb(k)) /= want_b(il, jl, descb, myrow_b, mycol_b, pb, 1)) errs(1) = errs(1) + 1
      if (db(k) /= want_b(il, jl, descb, myrow_b, mycol_b, pb, 1)) errs(1) = errs(1) + 1
      if (cb(k) /= cmplx(want_b(il, jl, descb, myrow_b, mycol_b, pb, 1), &
                         -abs(want_b(il, jl, descb, myrow_b, mycol_b, pb, 1)))) errs(1) = errs(1) + 1
      if (zb(k) /= dcmplx(want_b(il, jl, descb, myrow_b, mycol_b, pb, 1), &
                          -abs(want_b(il, jl, descb, myrow_b, mycol_b, pb, 1)))) errs(1) = errs(1) + 1
      if (dble(ib_(k)) /= want_b(il, jl, descb, myrow_b, mycol_b, pb, 1)) errs(1) = errs(1) + 1
    end do
  end do
  do jl = 1, locc_a
    do il = 1, lld_a
      k = il + (jl - 1) * lld_a
      if (da(k) /= want_a(il, jl, desca, myrow_a, mycol_a, p, q)) errs(1) = errs(1) + 1
    end do
  end do
  errs(1) = errs(1) + pblas_errors(da, desca, myrow_a, mycol_a, p, q)
  call igsum2d(ictxt, 'All', ' ', 1, 1, errs, 1, -1, -1)
  if (me == 0) then
    if (errs(1) == 0) then
      print '(a, i0, a)', 'fortran driver: ok on ', np, ' processes, 5 types and PBLAS'
    else
      print '(a, i0, a)', 'fortran driver: FAILED: ', errs(1), ' wrong elements'
    end if
  end if
  call blacs_exit(0)
end program
