! The PBLAS drop-in benchmark: one unmodified ScaLAPACK program in Fortran, BLACS and PBLAS
! only, that times PDTRAN (C := A^T) and PDGEADD (C := 0.5 C + 2 A) between two block sizes
! on an R x 1 grid (2 x 1 on 2 processes). It is linked to ScaLAPACK only and knows nothing
! of redist; bench/pblas/run.sh runs it as it is (PBLAS's routines) and with
! LD_PRELOAD=libredist_scalapack.so (redist's under the same names), alternately. Whether
! redist_scalapack_version is defined (dlsym) only labels the output.
!
! Per case: A and C of one size on the "Row" grid, each with its own square blocks, first
! block on process 0, the whole matrix; small integers in both, so that every result is
! exact. The first call is timed alone (redist plans there), then REPEAT calls, each
! between BLACS barriers, time = max over processes (DGAMX2D); then C is restored, the
! routine called once more and every element of C checked. A 4 x 4 call before the cases
! takes the process's start-up (redist initializes Kokkos there). Per case also the floor:
! REPEAT copies of the process's A into a scratch array of its size (one memcpy, every
! process copying at once, between barriers, max over processes), the time any routine
! needs to read A once and write as many bytes (the single-copy floor; PDGEADD with beta
! /= 0 also reads C, so it is a lower bound there). For PDGEADD also the scaled-add floor:
! REPEAT of scratch := 0.5 scratch + 2 A on each process, the same way: reading A and C and
! writing C, what C := beta C + alpha A does at least with beta /= 0.
!
! Usage: redist-dropin-pblas [--repeat N] [--json FILE] [--case PREFIX]
module dropin_cases
  implicit none
  integer, parameter :: ncases = 6
  ! name, what, transpose (PDTRAN, else PDGEADD 'N'), size, A's block, C's block, alpha, beta
  character(len=10), parameter :: names(ncases) = [character(len=10) :: 'tran', 'geadd', &
    'tran-8x8', 'geadd-8x8', 'tran-1x1', 'geadd-1x1']
  character(len=36), parameter :: whats(ncases) = [character(len=36) :: &
    'pdtran 4096^2, 256^2 -> 100^2 Rx1', 'pdgeadd 4096^2, 256^2 -> 100^2 Rx1', &
    'pdtran 1024^2, 8^2 -> 4^2 Rx1', 'pdgeadd 1024^2, 8^2 -> 4^2 Rx1', &
    'pdtran 1024^2, 1^2 -> 4^2 Rx1', 'pdgeadd 1024^2, 1^2 -> 4^2 Rx1']
  logical, parameter :: transposes(ncases) = [.true., .false., .true., .false., .true., .false.]
  integer, parameter :: sizes(ncases) = [4096, 4096, 1024, 1024, 1024, 1024]
  integer, parameter :: a_blocks(ncases) = [256, 256, 8, 8, 1, 1]
  integer, parameter :: c_blocks(ncases) = [100, 100, 4, 4, 4, 4]
  double precision, parameter :: alphas(ncases) = [1d0, 2d0, 1d0, 2d0, 1d0, 2d0]
  double precision, parameter :: betas(ncases) = [0d0, 0.5d0, 0d0, 0.5d0, 0d0, 0.5d0]
contains
  ! A and C of global 0-based index (i, j).
  double precision function fa(i, j)
    integer, intent(in) :: i, j
    fa = dble(mod(i * 7 + j * 13, 23) - 11)
  end function
  double precision function fc(i, j)
    integer, intent(in) :: i, j
    fc = dble(mod(i * 11 + j * 5, 19) - 9)
  end function

  ! "redist_scalapack <version>" when libredist_scalapack is loaded, else "scalapack".
  function implementation() result(label)
    use iso_c_binding
    character(len=64) :: label
    interface
      type(c_funptr) function dlsym(handle, symbol) bind(c, name='dlsym')
        import :: c_ptr, c_funptr, c_char
        type(c_ptr), value :: handle
        character(kind=c_char), intent(in) :: symbol(*)
      end function
      type(c_ptr) function version_fn() bind(c)
        import :: c_ptr
      end function
    end interface
    procedure(version_fn), pointer :: version
    type(c_funptr) :: f
    character(kind=c_char), pointer :: text(:)
    integer :: k
    label = 'scalapack'
    f = dlsym(c_null_ptr, 'redist_scalapack_version' // c_null_char)  ! RTLD_DEFAULT
    if (.not. c_associated(f)) return
    call c_f_procpointer(f, version)
    call c_f_pointer(version(), text, [64])
    label = ''
    do k = 1, 64
      if (text(k) == c_null_char) exit
      label(k:k) = text(k)
    end do
  end function

  ! Seconds since an arbitrary start.
  double precision function now()
    integer(8) :: count, rate
    call system_clock(count, rate)
    now = dble(count) / dble(rate)
  end function
end module

program pblas_dropin
  use dropin_cases
  implicit none
  integer :: me, np, ctxt, nprow, npcol, myrow, mycol, repeat, k, r, bad, unit, written
  integer :: desca(9), descc(9), locr_a, locr_c, n
  double precision :: first, median, best, floor_s, add_s, startup, load_start, load_end
  double precision, allocatable :: a(:), c(:), times(:)
  character(len=256) :: arg, json, only
  character(len=64) :: impl

  repeat = 10
  json = ''
  only = ''
  k = 1
  do while (k <= command_argument_count())
    call get_command_argument(k, arg)
    if (arg == '--repeat') then
      call get_command_argument(k + 1, arg)
      read (arg, *) repeat
      k = k + 1
    else if (arg == '--json') then
      call get_command_argument(k + 1, json)
      k = k + 1
    else if (arg == '--case') then
      call get_command_argument(k + 1, only)
      k = k + 1
    end if
    k = k + 1
  end do
  repeat = max(1, repeat)
  allocate(times(repeat))
  call blacs_pinfo(me, np)
  call blacs_get(-1, 0, ctxt)
  call blacs_gridinit(ctxt, 'Row', np, 1)
  call blacs_gridinfo(ctxt, nprow, npcol, myrow, mycol)
  impl = implementation()

  ! Start-up: the first call of the process.
  call make(4, 2, desca, locr_a, a, .true.)
  call make(4, 1, descc, locr_c, c, .false.)
  startup = timed(1)
  deallocate(a, c)

  load_start = loadavg()
  written = 0
  if (me == 0) then
    write (*, '(a, a, a, i0, a, f8.4, a)') 'dropin-pblas: ', trim(impl), ', ', np, &
      ' processes, start-up ', startup, ' s'
    write (*, '(a)') 'case       what                                    first s   median s' // &
      '     best s check  floor s'
    if (json /= '') then
      open (newunit=unit, file=trim(json), status='replace', action='write')
      write (unit, '(a, a, a, i0, a, i0, a, es15.8, a, f6.2, a)') &
        '{"suite": "dropin-pblas", "implementation": "', trim(impl), '", "ranks": ', np, &
        ', "repeat": ', repeat, ', "startup_seconds": ', startup, ', "loadavg_start": ', &
        load_start, ', "cases": ['
    end if
  end if
  do k = 1, ncases
    if (only /= '' .and. index(names(k), trim(only)) /= 1) cycle
    n = sizes(k)
    call make(n, a_blocks(k), desca, locr_a, a, .true.)
    call make(n, c_blocks(k), descc, locr_c, c, .false.)
    first = timed(k)
    do r = 1, repeat
      times(r) = timed(k)
    end do
    bad = mismatches(k)
    median = median_of(times)
    best = minval(times)
    floor_s = copy_floor()
    add_s = 0
    if (.not. transposes(k)) add_s = add_floor()
    if (me == 0) then
      write (*, '(a10, 1x, a36, 3f11.4, 1x, a, f9.4)') names(k), whats(k), first, median, &
        best, merge('ok   ', 'WRONG', bad == 0), floor_s
      if (json /= '') then
        write (unit, '(a, a, a, a, a, a, i0, a, es15.8, a, es15.8, a, es15.8, a, i0, a)', &
          advance='no') merge('  ', ', ', written == 0), '{"name": "', trim(names(k)), &
          '", "what": "', trim(whats(k)), '", "n": ', n, ', "first_seconds": ', first, &
          ', "median_seconds": ', median, ', "best_seconds": ', best, &
          ', "mismatches": ', bad, ', "times": ['
        do r = 1, repeat
          write (unit, '(a, es15.8)', advance='no') merge('  ', ', ', r == 1), times(r)
        end do
        write (unit, '(a, es15.8)', advance='no') '], "memcpy_seconds": ', floor_s
        if (.not. transposes(k)) &
          write (unit, '(a, es15.8)', advance='no') ', "scaled_add_seconds": ', add_s
        write (unit, '(a)') '}'
        written = written + 1
      end if
    end if
    deallocate(a, c)
  end do
  load_end = loadavg()
  if (me == 0 .and. json /= '') then
    write (unit, '(a, f6.2, a)') '], "loadavg_end": ', load_end, '}'
    close (unit)
  end if
  call blacs_gridexit(ctxt)
  call blacs_exit(0)

contains
  ! Descriptor and local array of an n x n matrix in nb x nb blocks (A: fa, C: fc).
  subroutine make(n, nb, desc, locr, x, is_a)
    integer, intent(in) :: n, nb
    integer, intent(out) :: desc(9), locr
    double precision, allocatable, intent(out) :: x(:)
    logical, intent(in) :: is_a
    integer :: info
    integer, external :: numroc
    locr = numroc(n, nb, myrow, 0, nprow)
    call descinit(desc, n, n, nb, nb, 0, 0, ctxt, max(1, locr), info)
    allocate(x(max(1, locr) * n))
    call fill(x, desc, locr, is_a)
  end subroutine

  subroutine fill(x, desc, locr, is_a)
    double precision, intent(inout) :: x(:)
    integer, intent(in) :: desc(9), locr
    logical, intent(in) :: is_a
    integer :: il, jl, gi
    integer, external :: indxl2g
    do jl = 1, desc(4)
      do il = 1, locr
        gi = indxl2g(il, desc(5), myrow, 0, nprow) - 1
        if (is_a) then
          x(il + (jl - 1) * desc(9)) = fa(gi, jl - 1)
        else
          x(il + (jl - 1) * desc(9)) = fc(gi, jl - 1)
        end if
      end do
    end do
  end subroutine

  ! One call of case k (0: the start-up call), max over processes.
  double precision function timed(k)
    integer, intent(in) :: k
    double precision :: t(1), alpha, beta
    integer :: ignored(1), m
    m = desca(3)
    alpha = 1d0
    beta = 0d0
    if (k >= 1) alpha = alphas(k)
    if (k >= 1) beta = betas(k)
    call blacs_barrier(ctxt, 'All')
    t(1) = now()
    if (k < 1 .or. transposes(max(k, 1))) then
      call pdtran(m, m, alpha, a, 1, 1, desca, beta, c, 1, 1, descc)
    else
      call pdgeadd('N', m, m, alpha, a, 1, 1, desca, beta, c, 1, 1, descc)
    end if
    t(1) = now() - t(1)
    call dgamx2d(ctxt, 'All', ' ', 1, 1, t, 1, ignored, ignored, -1, -1, -1)
    timed = t(1)
  end function

  ! Wrong elements of C after one call of case k from C's initial values, over processes.
  integer function mismatches(k)
    integer, intent(in) :: k
    integer :: il, jl, gi, wrong(1)
    integer, external :: indxl2g
    double precision :: av, t
    call fill(c, descc, locr_c, .false.)
    t = timed(k)
    wrong(1) = 0
    do jl = 1, descc(4)
      do il = 1, locr_c
        gi = indxl2g(il, descc(5), myrow, 0, nprow) - 1
        if (transposes(k)) then
          av = fa(jl - 1, gi)
        else
          av = fa(gi, jl - 1)
        end if
        if (c(il + (jl - 1) * descc(9)) /= alphas(k) * av + betas(k) * fc(gi, jl - 1)) &
          wrong(1) = wrong(1) + 1
      end do
    end do
    call igsum2d(ctxt, 'All', ' ', 1, 1, wrong, 1, -1, -1)
    mismatches = wrong(1)
  end function

  ! The median of x.
  double precision function median_of(x)
    double precision, intent(in) :: x(:)
    double precision :: y(size(x))
    integer :: m
    y = x
    call sort(y)
    m = size(y)
    if (mod(m, 2) == 1) then
      median_of = y(m / 2 + 1)
    else
      median_of = 0.5d0 * (y(m / 2) + y(m / 2 + 1))
    end if
  end function

  ! The single-copy floor of the case: median over REPEAT copies of this process's A into a
  ! scratch array of its size, every process at once, max over processes each time.
  double precision function copy_floor()
    double precision, allocatable :: scratch(:)
    double precision :: t(1), copies(repeat)
    integer :: ignored(1), r
    allocate(scratch(size(a)))
    scratch = 0  ! its pages, before the clock
    do r = 1, repeat
      call blacs_barrier(ctxt, 'All')
      t(1) = now()
      scratch = a
      t(1) = now() - t(1)
      call dgamx2d(ctxt, 'All', ' ', 1, 1, t, 1, ignored, ignored, -1, -1, -1)
      copies(r) = t(1)
      if (scratch(size(scratch)) /= a(size(a))) stop 'copy_floor: the copy is wrong'
    end do
    copy_floor = median_of(copies)
    deallocate(scratch)
  end function

  ! The scaled-add floor of a PDGEADD case: median over REPEAT of scratch := 0.5 scratch + 2 A
  ! on arrays of this process's A's size, every process at once, max over processes each
  ! time: reads A and C and writes C, which the single-copy floor leaves out C's read of.
  double precision function add_floor()
    double precision, allocatable :: scratch(:)
    double precision :: t(1), adds(repeat), expect
    integer :: ignored(1), r
    allocate(scratch(size(a)))
    scratch = 0  ! its pages, before the clock; stays exact: 0.5 * even + 2 * integer
    do r = 1, repeat
      call blacs_barrier(ctxt, 'All')
      t(1) = now()
      scratch = 0.5d0 * scratch + 2d0 * a
      t(1) = now() - t(1)
      call dgamx2d(ctxt, 'All', ' ', 1, 1, t, 1, ignored, ignored, -1, -1, -1)
      adds(r) = t(1)
    end do
    expect = 0  ! the last element, as the loop made it (exact: small integers and halves)
    do r = 1, repeat
      expect = 0.5d0 * expect + 2d0 * a(size(a))
    end do
    if (scratch(size(scratch)) /= expect) stop 'add_floor: the scaled add is wrong'
    add_floor = median_of(adds)
    deallocate(scratch)
  end function

  subroutine sort(x)
    double precision, intent(inout) :: x(:)
    double precision :: v
    integer :: i, j
    do i = 2, size(x)
      v = x(i)
      j = i - 1
      do while (j >= 1)
        if (x(j) <= v) exit
        x(j + 1) = x(j)
        j = j - 1
      end do
      x(j + 1) = v
    end do
  end subroutine

  double precision function loadavg()
    integer :: u, status
    loadavg = -1
    open (newunit=u, file='/proc/loadavg', status='old', action='read', iostat=status)
    if (status /= 0) return
    read (u, *, iostat=status) loadavg
    close (u)
  end function
end program
