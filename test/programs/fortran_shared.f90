! fortran_shared.f90 - the shared-file-pointer routines called from Fortran (`use mpi`).
!
! Usage: fortran_shared FILE
!
! Calls every routine piox wraps (pmpi_shim/routines.def) at least once, so that each
! way of passing an argument from Fortran is exercised, and checks the results
! itself. Prints " No Errors" (rank 0) and exits 0 on success; exits 1 otherwise.
!
! A record is RECLEN bytes of text, so the file can be read with `cat`:
!   "shared  rank=000002 seq=000001 \n"
! The file holds four sections of records, in this order:
!   shared   NSHARED per rank, any interleaving   MPI_FILE_WRITE_SHARED
!   ordered  one per rank, in rank order          MPI_FILE_WRITE_ORDERED
!   ishared  one per rank, any order              MPI_FILE_IWRITE_SHARED
!   split    one per rank, in rank order          MPI_FILE_WRITE_ORDERED_BEGIN/END
! The last two are written through a view (MPI_FILE_SET_VIEW) that starts after the
! first two. The program reads everything back with MPI_FILE_READ_SHARED,
! MPI_FILE_READ_ORDERED, MPI_FILE_IREAD_SHARED and MPI_FILE_READ_ORDERED_BEGIN/END,
! moves the pointer with MPI_FILE_SEEK_SHARED and checks it with
! MPI_FILE_GET_POSITION_SHARED along the way. test/integration/test_fortran.py
! checks the same layout from the file's bytes.
program fortran_shared
    use mpi
    implicit none

    integer, parameter :: RECLEN = 32, NSHARED = 3
    integer, parameter :: AMODE = MPI_MODE_CREATE + MPI_MODE_RDWR
    character(len=4096) :: filename
    ! Blank-padded, as Fortran strings are: the library must see "native".
    character(len=16) :: datarep = 'native'
    character(len=RECLEN) :: rec
    integer :: fh, ierr, rank, nprocs, i, errors, total_errors(1), amode_got, request
    integer :: status(MPI_STATUS_SIZE)
    integer(kind=MPI_OFFSET_KIND) :: shared_bytes, first_bytes
    ! seen(writer * per_rank + seq): how often record (writer, seq) of a section was read.
    integer, allocatable :: seen(:)

    errors = 0
    call MPI_INIT(ierr)
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
    if (command_argument_count() /= 1) then
        if (rank == 0) print '(A)', 'usage: fortran_shared FILE'
        call MPI_ABORT(MPI_COMM_WORLD, 2, ierr)
    end if
    call get_command_argument(1, filename)
    shared_bytes = int(nprocs, MPI_OFFSET_KIND) * NSHARED * RECLEN
    first_bytes = shared_bytes + int(nprocs, MPI_OFFSET_KIND) * RECLEN  ! shared + ordered

    ! Start from an empty file, whatever an earlier run left.
    if (rank == 0) call MPI_FILE_DELETE(filename, MPI_INFO_NULL, ierr)
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    ! The trailing blanks of `filename` are Fortran padding, not part of the name.
    call MPI_FILE_OPEN(MPI_COMM_WORLD, filename, AMODE, MPI_INFO_NULL, fh, ierr)
    call check_ierr('MPI_FILE_OPEN')
    if (ierr /= MPI_SUCCESS) call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
    call MPI_FILE_GET_AMODE(fh, amode_got, ierr)
    call check_ierr('MPI_FILE_GET_AMODE')
    if (amode_got /= AMODE) call fail('MPI_FILE_GET_AMODE returned a different mode')
    ! Every position check is collective (see expect_position), so no rank moves the
    ! pointer while another looks at it.
    call expect_position(0_MPI_OFFSET_KIND, 'after open')

    ! --- Writing, with the default view (etype: byte).
    do i = 0, NSHARED - 1
        rec = make_record('shared', rank, i)
        if (i == 0) then
            call MPI_FILE_WRITE_SHARED(fh, rec, RECLEN, MPI_CHARACTER, status, ierr)
            call check_ierr('MPI_FILE_WRITE_SHARED')
            call expect_count(status, 'MPI_FILE_WRITE_SHARED')
        else
            call MPI_FILE_WRITE_SHARED(fh, rec, RECLEN, MPI_CHARACTER, MPI_STATUS_IGNORE, ierr)
            call check_ierr('MPI_FILE_WRITE_SHARED (MPI_STATUS_IGNORE)')
        end if
    end do
    ! (The ordered records go after all shared ones: expect_position synchronises.)
    call expect_position(shared_bytes, 'after the shared writes')

    rec = make_record('ordered', rank, 0)
    call MPI_FILE_WRITE_ORDERED(fh, rec, RECLEN, MPI_CHARACTER, status, ierr)
    call check_ierr('MPI_FILE_WRITE_ORDERED')
    call expect_count(status, 'MPI_FILE_WRITE_ORDERED')
    call expect_position(first_bytes, 'after the ordered write')

    ! --- Writing through a view that starts after what is written so far. Setting a
    ! view puts the shared pointer at its start.
    call MPI_FILE_SET_VIEW(fh, first_bytes, MPI_CHARACTER, MPI_CHARACTER, datarep, &
                           MPI_INFO_NULL, ierr)
    call check_ierr('MPI_FILE_SET_VIEW')
    call expect_position(0_MPI_OFFSET_KIND, 'after MPI_FILE_SET_VIEW')

    rec = make_record('ishared', rank, 0)
    call MPI_FILE_IWRITE_SHARED(fh, rec, RECLEN, MPI_CHARACTER, request, ierr)
    call check_ierr('MPI_FILE_IWRITE_SHARED')
    call MPI_WAIT(request, status, ierr)
    call check_ierr('MPI_WAIT (MPI_FILE_IWRITE_SHARED)')
    call expect_count(status, 'MPI_FILE_IWRITE_SHARED')
    call expect_position(int(nprocs, MPI_OFFSET_KIND) * RECLEN, 'after the ishared writes')

    rec = make_record('split', rank, 0)
    call MPI_FILE_WRITE_ORDERED_BEGIN(fh, rec, RECLEN, MPI_CHARACTER, ierr)
    call check_ierr('MPI_FILE_WRITE_ORDERED_BEGIN')
    call MPI_FILE_WRITE_ORDERED_END(fh, rec, status, ierr)
    call check_ierr('MPI_FILE_WRITE_ORDERED_END')
    call expect_count(status, 'MPI_FILE_WRITE_ORDERED_END')
    call expect_position(2 * int(nprocs, MPI_OFFSET_KIND) * RECLEN, 'after the split writes')

    ! --- Reading the view's two sections back.
    call MPI_FILE_SEEK_SHARED(fh, 0_MPI_OFFSET_KIND, MPI_SEEK_SET, ierr)
    call check_ierr('MPI_FILE_SEEK_SHARED (view, MPI_SEEK_SET)')
    call expect_position(0_MPI_OFFSET_KIND, 'after seeking to the start of the view')

    allocate(seen(0:nprocs - 1))
    seen = 0
    rec = ''
    call MPI_FILE_IREAD_SHARED(fh, rec, RECLEN, MPI_CHARACTER, request, ierr)
    call check_ierr('MPI_FILE_IREAD_SHARED')
    call MPI_WAIT(request, status, ierr)
    call check_ierr('MPI_WAIT (MPI_FILE_IREAD_SHARED)')
    call expect_count(status, 'MPI_FILE_IREAD_SHARED')
    call tally(rec, 'ishared', 1)
    call expect_each_once('ishared')
    deallocate(seen)

    rec = ''
    call MPI_FILE_READ_ORDERED_BEGIN(fh, rec, RECLEN, MPI_CHARACTER, ierr)
    call check_ierr('MPI_FILE_READ_ORDERED_BEGIN')
    call MPI_FILE_READ_ORDERED_END(fh, rec, status, ierr)
    call check_ierr('MPI_FILE_READ_ORDERED_END')
    call expect_count(status, 'MPI_FILE_READ_ORDERED_END')
    call expect_own_record(rec, 'split', 'MPI_FILE_READ_ORDERED_BEGIN/END')
    call expect_position(2 * int(nprocs, MPI_OFFSET_KIND) * RECLEN, 'after the split reads')

    ! --- Back to the whole file: SEEK_END, SEEK_CUR (backwards) and SEEK_SET.
    call MPI_FILE_SET_VIEW(fh, 0_MPI_OFFSET_KIND, MPI_BYTE, MPI_BYTE, 'native', &
                           MPI_INFO_NULL, ierr)
    call check_ierr('MPI_FILE_SET_VIEW (whole file)')
    call MPI_FILE_SEEK_SHARED(fh, 0_MPI_OFFSET_KIND, MPI_SEEK_END, ierr)
    call check_ierr('MPI_FILE_SEEK_SHARED (MPI_SEEK_END)')
    call expect_position(first_bytes + 2 * int(nprocs, MPI_OFFSET_KIND) * RECLEN, &
                         'after MPI_SEEK_END')
    call MPI_FILE_SEEK_SHARED(fh, -2 * int(nprocs, MPI_OFFSET_KIND) * RECLEN, MPI_SEEK_CUR, ierr)
    call check_ierr('MPI_FILE_SEEK_SHARED (MPI_SEEK_CUR)')
    call expect_position(first_bytes, 'after MPI_SEEK_CUR')
    call MPI_FILE_SEEK_SHARED(fh, 0_MPI_OFFSET_KIND, MPI_SEEK_SET, ierr)
    call check_ierr('MPI_FILE_SEEK_SHARED (MPI_SEEK_SET)')
    call expect_position(0_MPI_OFFSET_KIND, 'after MPI_SEEK_SET')

    ! --- Reading the first two sections back.
    allocate(seen(0:nprocs * NSHARED - 1))
    seen = 0
    do i = 0, NSHARED - 1
        call MPI_FILE_READ_SHARED(fh, rec, RECLEN, MPI_CHARACTER, status, ierr)
        call check_ierr('MPI_FILE_READ_SHARED')
        call expect_count(status, 'MPI_FILE_READ_SHARED')
        call tally(rec, 'shared', NSHARED)
    end do
    call expect_each_once('shared')
    call expect_position(shared_bytes, 'after the shared reads')

    rec = ''
    call MPI_FILE_READ_ORDERED(fh, rec, RECLEN, MPI_CHARACTER, status, ierr)
    call check_ierr('MPI_FILE_READ_ORDERED')
    call expect_count(status, 'MPI_FILE_READ_ORDERED')
    call expect_own_record(rec, 'ordered', 'MPI_FILE_READ_ORDERED')
    call expect_position(first_bytes, 'after the ordered read')

    call MPI_FILE_CLOSE(fh, ierr)
    call check_ierr('MPI_FILE_CLOSE')
    if (fh /= MPI_FILE_NULL) call fail('MPI_FILE_CLOSE did not set the handle to MPI_FILE_NULL')

    ! (Rank-1 arrays, like `seen`: without ignore-TKR, gfortran wants every call to
    ! agree.)
    call MPI_ALLREDUCE([errors], total_errors, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank == 0 .and. total_errors(1) == 0) print '(A)', ' No Errors'  ! as ROMIO's tests
    if (rank == 0 .and. total_errors(1) /= 0) &
        print '(A,I0,A)', 'Found ', total_errors(1), ' errors'
    call MPI_FINALIZE(ierr)
    if (total_errors(1) /= 0) stop 1

contains

    ! Every access here moves exactly one record.
    subroutine expect_count(st, routine)
        integer, intent(in) :: st(MPI_STATUS_SIZE)
        character(len=*), intent(in) :: routine
        integer :: count, count_ierr
        call MPI_GET_COUNT(st, MPI_CHARACTER, count, count_ierr)
        if (count /= RECLEN) then
            print '(A,I0,3A,I0,A,I0)', 'rank ', rank, ': ', routine, ' status count ', count, &
                ', expected ', RECLEN
            errors = errors + 1
        end if
    end subroutine expect_count

    ! In an ordered section rank r reads the record rank r wrote.
    subroutine expect_own_record(r, kind, routine)
        character(len=RECLEN), intent(in) :: r
        character(len=*), intent(in) :: kind, routine
        if (r /= make_record(kind, rank, 0)) &
            call fail(routine // ' read "' // r(1:RECLEN - 1) // '"')
    end subroutine expect_own_record

    include 'fortran_records.inc'

end program fortran_shared
