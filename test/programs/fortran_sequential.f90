! fortran_sequential.f90 - an MPI_MODE_SEQUENTIAL file from Fortran (`use mpi`).
!
! Usage: fortran_sequential FILE
!
! Writes a log through the shared pointer of a file opened with MPI_MODE_SEQUENTIAL
! (MPI_FILE_WRITE_SHARED, MPI_FILE_IWRITE_SHARED, MPI_FILE_WRITE_ORDERED and its
! split form), moves the view to the shared pointer with MPI_DISPLACEMENT_CURRENT,
! checks that MPI_FILE_SEEK, MPI_FILE_GET_POSITION_SHARED and MPI_FILE_WRITE_AT are
! refused with MPI_ERR_UNSUPPORTED_OPERATION, then reads the log back with
! MPI_FILE_READ_SHARED and MPI_FILE_READ_ORDERED and checks that every record
! arrived exactly once. Records are RECLEN bytes of text:
!   "seq rank=000002 n=000003        \n"
! Prints " No Errors" (rank 0) and exits 0 on success; exits 1 otherwise.
program fortran_sequential
    use mpi
    implicit none

    integer, parameter :: RECLEN = 32, PER_RANK = 8
    character(len=4096) :: filename
    character(len=RECLEN) :: rec
    integer :: fh, ierr, rank, nprocs, i, errors, total_errors(1), request, amode_got
    integer :: status(MPI_STATUS_SIZE), writer, n, error_class
    integer(kind=MPI_OFFSET_KIND) :: disp, position
    integer :: etype, filetype
    character(len=MPI_MAX_DATAREP_STRING) :: datarep
    integer, allocatable :: seen(:), all_seen(:)

    errors = 0
    call MPI_INIT(ierr)
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
    if (command_argument_count() /= 1) then
        if (rank == 0) print '(A)', 'usage: fortran_sequential FILE'
        call MPI_ABORT(MPI_COMM_WORLD, 2, ierr)
    end if
    call get_command_argument(1, filename)
    if (rank == 0) call MPI_FILE_DELETE(filename, MPI_INFO_NULL, ierr)
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)

    call MPI_FILE_OPEN(MPI_COMM_WORLD, filename, &
                       MPI_MODE_SEQUENTIAL + MPI_MODE_WRONLY + MPI_MODE_CREATE, &
                       MPI_INFO_NULL, fh, ierr)
    call check_ierr('MPI_FILE_OPEN')
    if (ierr /= MPI_SUCCESS) call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
    call MPI_FILE_GET_AMODE(fh, amode_got, ierr)
    if (iand(amode_got, MPI_MODE_SEQUENTIAL) == 0) call fail('GET_AMODE lost MPI_MODE_SEQUENTIAL')

    call MPI_FILE_SEEK(fh, 0_MPI_OFFSET_KIND, MPI_SEEK_SET, ierr)
    call expect_unsupported('MPI_FILE_SEEK')
    call MPI_FILE_GET_POSITION_SHARED(fh, position, ierr)
    call expect_unsupported('MPI_FILE_GET_POSITION_SHARED')
    call make_record(0)
    call MPI_FILE_WRITE_AT(fh, 0_MPI_OFFSET_KIND, rec, RECLEN, MPI_CHARACTER, status, ierr)
    call expect_unsupported('MPI_FILE_WRITE_AT')

    do i = 0, PER_RANK - 1
        call make_record(i)
        select case (mod(i, 4))
        case (0)
            call MPI_FILE_WRITE_SHARED(fh, rec, RECLEN, MPI_CHARACTER, status, ierr)
        case (1)
            call MPI_FILE_IWRITE_SHARED(fh, rec, RECLEN, MPI_CHARACTER, request, ierr)
            call MPI_WAIT(request, status, ierr)
        case (2)
            call MPI_FILE_WRITE_ORDERED(fh, rec, RECLEN, MPI_CHARACTER, status, ierr)
        case default
            call MPI_FILE_WRITE_ORDERED_BEGIN(fh, rec, RECLEN, MPI_CHARACTER, ierr)
            call MPI_FILE_WRITE_ORDERED_END(fh, rec, status, ierr)
        end select
        call check_ierr('a shared-pointer write')
        if (i == PER_RANK / 2 - 1) then
            ! Everything so far is in: the next records start at the view's displacement.
            call MPI_FILE_SET_VIEW(fh, MPI_DISPLACEMENT_CURRENT, MPI_CHARACTER, &
                                   MPI_CHARACTER, 'native', MPI_INFO_NULL, ierr)
            call check_ierr('MPI_FILE_SET_VIEW(MPI_DISPLACEMENT_CURRENT)')
            call MPI_FILE_GET_VIEW(fh, disp, etype, filetype, datarep, ierr)
            if (disp /= int(nprocs, MPI_OFFSET_KIND) * RECLEN * (PER_RANK / 2)) &
                call fail('MPI_DISPLACEMENT_CURRENT gave the wrong displacement')
        end if
    end do
    call MPI_FILE_CLOSE(fh, ierr)

    allocate(seen(0:nprocs * PER_RANK - 1), all_seen(0:nprocs * PER_RANK - 1))
    seen = 0
    call MPI_FILE_OPEN(MPI_COMM_WORLD, filename, MPI_MODE_SEQUENTIAL + MPI_MODE_RDONLY, &
                       MPI_INFO_NULL, fh, ierr)
    do i = 0, PER_RANK - 1
        if (mod(i, 2) == 0) then
            call MPI_FILE_READ_SHARED(fh, rec, RECLEN, MPI_CHARACTER, status, ierr)
        else
            call MPI_FILE_READ_ORDERED(fh, rec, RECLEN, MPI_CHARACTER, status, ierr)
        end if
        call check_ierr('a shared-pointer read')
        read (rec, '(9X,I6,3X,I6)') writer, n
        if (writer < 0 .or. writer >= nprocs .or. n < 0 .or. n >= PER_RANK) then
            call fail('read a record that was not written: '//rec)
        else
            seen(writer * PER_RANK + n) = seen(writer * PER_RANK + n) + 1
        end if
    end do
    call MPI_FILE_CLOSE(fh, ierr)
    call MPI_REDUCE(seen, all_seen, nprocs * PER_RANK, MPI_INTEGER, MPI_SUM, 0, &
                    MPI_COMM_WORLD, ierr)
    if (rank == 0) then
        if (any(all_seen /= 1)) call fail('a record was not read exactly once')
    end if

    call MPI_REDUCE([errors], total_errors, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    if (rank == 0 .and. total_errors(1) == 0) print '(A)', ' No Errors'
    call MPI_FINALIZE(ierr)
    if (errors /= 0) stop 1

contains

    subroutine make_record(seq)
        integer, intent(in) :: seq
        write (rec, '(A,I6.6,A,I6.6)') 'seq rank=', rank, ' n=', seq
        rec(RECLEN:RECLEN) = achar(10)
    end subroutine make_record

    subroutine check_ierr(what)
        character(len=*), intent(in) :: what
        if (ierr /= MPI_SUCCESS) call fail(what//' failed')
    end subroutine check_ierr

    subroutine expect_unsupported(what)
        character(len=*), intent(in) :: what
        integer :: ignored
        error_class = MPI_SUCCESS
        if (ierr /= MPI_SUCCESS) call MPI_ERROR_CLASS(ierr, error_class, ignored)
        if (error_class /= MPI_ERR_UNSUPPORTED_OPERATION) &
            call fail(what//' was not refused with MPI_ERR_UNSUPPORTED_OPERATION')
    end subroutine expect_unsupported

    subroutine fail(what)
        character(len=*), intent(in) :: what
        errors = errors + 1
        print '(A,I0,A,A)', 'FAIL rank ', rank, ': ', what
    end subroutine fail

end program fortran_sequential
