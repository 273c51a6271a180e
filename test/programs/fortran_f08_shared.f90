! fortran_f08_shared.f90 - shared file pointers and atomic mode from Fortran 2008
! (`use mpi_f08`), the bindings fortran_shared.f90 (`use mpi`) does not reach.
!
! Usage: fortran_f08_shared FILE
!
! Prints " No Errors" (rank 0) and exits 0 when every check passed; exits 1
! otherwise. A record is RECLEN bytes of text, "shared  rank=000002 seq=000001 \n",
! as in fortran_shared.f90. The file holds three sections, in this order:
!   shared   NSHARED per rank, any interleaving   MPI_File_write_shared
!   ordered  one per rank, in rank order          MPI_File_write_ordered
!   atomic   one per rank, at rank's slot         MPI_File_write_at in atomic mode
! Each rank then checks what it reads: in atomic mode its neighbour's atomic
! record (MPI_File_read_at, after a barrier: atomic mode makes it visible), and,
! after MPI_File_seek_shared back to the start, NSHARED records through
! MPI_File_read_shared (together the ranks read each shared record once).
! MPI_File_get_position_shared is checked between the steps.
! test/integration/test_romio_clients.py checks the same layout from the bytes.
! The records and most checks are fortran_shared.f90's (fortran_records.inc).
program fortran_f08_shared
    use mpi_f08
    implicit none

    integer, parameter :: RECLEN = 32, NSHARED = 3
    character(len=4096) :: filename
    character(len=RECLEN) :: rec
    type(MPI_File) :: fh
    type(MPI_Status) :: status
    integer :: ierr, rank, nprocs, i, errors, total_errors, neighbour
    integer(kind=MPI_OFFSET_KIND) :: shared_bytes, first_bytes, atomic_at
    logical :: atomic
    ! seen(writer * NSHARED + seq): how often shared record (writer, seq) was read.
    integer, allocatable :: seen(:)

    errors = 0
    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
    if (command_argument_count() /= 1) then
        if (rank == 0) print '(A)', 'usage: fortran_f08_shared FILE'
        call MPI_Abort(MPI_COMM_WORLD, 2)
    end if
    call get_command_argument(1, filename)
    shared_bytes = int(nprocs, MPI_OFFSET_KIND) * NSHARED * RECLEN
    first_bytes = shared_bytes + int(nprocs, MPI_OFFSET_KIND) * RECLEN  ! shared + ordered

    if (rank == 0) call MPI_File_delete(filename, MPI_INFO_NULL, ierr)  ! absent at first
    call MPI_Barrier(MPI_COMM_WORLD)
    call MPI_File_open(MPI_COMM_WORLD, filename, MPI_MODE_CREATE + MPI_MODE_RDWR, &
                       MPI_INFO_NULL, fh, ierr)
    call check_ierr('MPI_File_open')
    if (ierr /= MPI_SUCCESS) call MPI_Abort(MPI_COMM_WORLD, 1)
    call expect_position(0_MPI_OFFSET_KIND, 'after open')

    do i = 0, NSHARED - 1
        rec = make_record('shared', rank, i)
        call MPI_File_write_shared(fh, rec, RECLEN, MPI_CHARACTER, status, ierr)
        call check_ierr('MPI_File_write_shared')
        call expect_count(status, 'MPI_File_write_shared')
    end do
    call expect_position(shared_bytes, 'after the shared writes')

    rec = make_record('ordered', rank, 0)
    call MPI_File_write_ordered(fh, rec, RECLEN, MPI_CHARACTER, status, ierr)
    call check_ierr('MPI_File_write_ordered')
    call expect_count(status, 'MPI_File_write_ordered')
    call expect_position(first_bytes, 'after the ordered write')

    ! --- Atomic mode: explicit offsets, each rank reads its neighbour's record.
    call MPI_File_set_atomicity(fh, .true., ierr)
    call check_ierr('MPI_File_set_atomicity')
    call MPI_File_get_atomicity(fh, atomic, ierr)
    call check_ierr('MPI_File_get_atomicity')
    if (.not. atomic) call fail('MPI_File_get_atomicity says atomic mode is off')
    atomic_at = first_bytes + int(rank, MPI_OFFSET_KIND) * RECLEN
    rec = make_record('atomic', rank, 0)
    call MPI_File_write_at(fh, atomic_at, rec, RECLEN, MPI_CHARACTER, status, ierr)
    call check_ierr('MPI_File_write_at')
    call expect_count(status, 'MPI_File_write_at')
    call MPI_Barrier(MPI_COMM_WORLD)
    neighbour = mod(rank + 1, nprocs)
    rec = ''
    call MPI_File_read_at(fh, first_bytes + int(neighbour, MPI_OFFSET_KIND) * RECLEN, rec, &
                          RECLEN, MPI_CHARACTER, status, ierr)
    call check_ierr('MPI_File_read_at')
    call expect_count(status, 'MPI_File_read_at')
    if (rec /= make_record('atomic', neighbour, 0)) &
        call fail('MPI_File_read_at read "' // rec(1:RECLEN - 1) // '"')
    call MPI_File_set_atomicity(fh, .false., ierr)
    call check_ierr('MPI_File_set_atomicity (off)')

    ! --- The shared records back, from the start.
    call MPI_File_seek_shared(fh, 0_MPI_OFFSET_KIND, MPI_SEEK_SET, ierr)
    call check_ierr('MPI_File_seek_shared')
    call expect_position(0_MPI_OFFSET_KIND, 'after seeking to the start')
    allocate(seen(0:nprocs * NSHARED - 1))
    seen = 0
    do i = 0, NSHARED - 1
        rec = ''
        call MPI_File_read_shared(fh, rec, RECLEN, MPI_CHARACTER, status, ierr)
        call check_ierr('MPI_File_read_shared')
        call expect_count(status, 'MPI_File_read_shared')
        call tally(rec, 'shared', NSHARED)
    end do
    call expect_each_once('shared')
    call expect_position(shared_bytes, 'after the shared reads')

    call MPI_File_close(fh, ierr)
    call check_ierr('MPI_File_close')
    if (fh /= MPI_FILE_NULL) call fail('MPI_File_close did not set the handle to MPI_FILE_NULL')

    call MPI_Allreduce(errors, total_errors, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    if (rank == 0 .and. total_errors == 0) print '(A)', ' No Errors'  ! as ROMIO's tests
    if (rank == 0 .and. total_errors /= 0) print '(A,I0,A)', 'Found ', total_errors, ' errors'
    call MPI_Finalize()
    if (total_errors /= 0) stop 1

contains

    ! Every access here moves exactly one record.
    subroutine expect_count(st, routine)
        type(MPI_Status), intent(in) :: st
        character(len=*), intent(in) :: routine
        integer :: count
        call MPI_Get_count(st, MPI_CHARACTER, count)
        if (count /= RECLEN) then
            print '(A,I0,3A,I0,A,I0)', 'rank ', rank, ': ', routine, ' status count ', count, &
                ', expected ', RECLEN
            errors = errors + 1
        end if
    end subroutine expect_count

    include 'fortran_records.inc'

end program fortran_f08_shared
