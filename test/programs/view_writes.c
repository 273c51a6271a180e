/*
 * view_writes DIR ATOMIC - the data path through a view whose filetype's lower bound
 * lies past its data: filetype MPI_Type_create_resized(MPI_INT, 4, 12), etype
 * MPI_INT. Each rank owns 64 bytes of DIR/view_writes at displacement 64 * rank,
 * prefilled with 0xAA, and writes 2 ints with one routine after another: the
 * individual pointer (blocking, collective, nonblocking, split), then explicit
 * offsets. The standard puts the ints at bytes 0 and 12 of the rank's part and moves
 * the individual pointer to 2; the holes keep 0xAA. ATOMIC=1 sets atomic mode.
 * Every byte of the file is checked after each routine; reads through the same view
 * must give the ints back. (ROMIO 4.0.2 with write sieving off wrote one int, or
 * none, for some of these: issue 14.)
 */
#include "file_part.h"
#include "testlib.h"

#include <string.h>

#define PART 64
#define FILL 0xAA

static int rank, nprocs;

static void set_resized_view(MPI_File fh, MPI_Datatype filetype)
{
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)rank * PART, MPI_INT, filetype, "native",
                                MPI_INFO_NULL));
}

/* Every byte of this rank's part, read through the default view. */
static void check_part(MPI_File fh, const int ints[2], const char *routine)
{
    unsigned char expected[PART];
    memset(expected, FILL, sizeof expected);
    memcpy(expected + 0, &ints[0], 4);
    memcpy(expected + 12, &ints[1], 4);
    file_part_check(fh, (MPI_Offset)rank * PART, expected, PART, routine);
}

static void check_count(MPI_Status *status, const char *routine)
{
    int count = -1;
    MPI_Get_count(status, MPI_INT, &count);
    CHECK(count == 2, "%s: status counts %d ints, expected 2", routine, count);
}

static void check_position(MPI_File fh, MPI_Offset expected, const char *routine)
{
    MPI_Offset position = -1;
    CHECK_MPI(MPI_File_get_position(fh, &position));
    CHECK(position == expected, "%s: position %lld, expected %lld", routine,
          (long long)position, (long long)expected);
}

/* Writes ints with routine number `which`; returns its name. */
static const char *write_with(MPI_File fh, int which, const int ints[2])
{
    MPI_Status status;
    MPI_Request request;
    switch (which) {
    case 0:
        CHECK_MPI(MPI_File_write(fh, ints, 2, MPI_INT, &status));
        check_count(&status, "MPI_File_write");
        return "MPI_File_write";
    case 1:
        CHECK_MPI(MPI_File_write_all(fh, ints, 2, MPI_INT, &status));
        check_count(&status, "MPI_File_write_all");
        return "MPI_File_write_all";
    case 2:
        CHECK_MPI(MPI_File_iwrite(fh, ints, 2, MPI_INT, &request));
        CHECK_MPI(MPI_Wait(&request, &status));
        check_count(&status, "MPI_File_iwrite");
        return "MPI_File_iwrite";
    case 3:
        CHECK_MPI(MPI_File_write_all_begin(fh, ints, 2, MPI_INT));
        CHECK_MPI(MPI_File_write_all_end(fh, ints, &status));
        check_count(&status, "MPI_File_write_all_begin");
        return "MPI_File_write_all_begin";
    case 4:
        CHECK_MPI(MPI_File_write_at(fh, 0, ints, 2, MPI_INT, &status));
        check_count(&status, "MPI_File_write_at");
        return "MPI_File_write_at";
    default:
        CHECK_MPI(MPI_File_write_at_all(fh, 0, ints, 2, MPI_INT, &status));
        check_count(&status, "MPI_File_write_at_all");
        return "MPI_File_write_at_all";
    }
}

#define ROUTINES 6
#define POINTER_ROUTINES 4

int main(int argc, char **argv)
{
    char dir[3000], path[4096];
    if (!testlib_start_in_dir(&argc, &argv, dir, sizeof dir))
        return 2;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    const int atomic = argc > 2 && atoi(argv[2]) != 0;
    snprintf(path, sizeof path, "%s/view_writes", dir);

    MPI_Datatype filetype;
    MPI_Type_create_resized(MPI_INT, 4, 12, &filetype);
    MPI_Type_commit(&filetype);
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                            &fh));
    CHECK_MPI(MPI_File_set_atomicity(fh, atomic));
    for (int which = 0; which < ROUTINES; which++) {
        const int ints[2] = {0x01010101 * (which + 1), 0x10101010 + rank};
        file_part_fill(fh, (MPI_Offset)rank * PART, PART, FILL);
        set_resized_view(fh, filetype);
        const char *routine = write_with(fh, which, ints);
        if (which < POINTER_ROUTINES)
            check_position(fh, 2, routine);
        check_part(fh, ints, routine);

        int back[2] = {0, 0};
        set_resized_view(fh, filetype);
        CHECK_MPI(MPI_File_read(fh, back, 2, MPI_INT, MPI_STATUS_IGNORE));
        CHECK(back[0] == ints[0] && back[1] == ints[1],
              "%s: MPI_File_read through the view gave 0x%08x 0x%08x", routine, back[0], back[1]);
        check_position(fh, 2, "MPI_File_read");
    }
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Type_free(&filetype);
    return testlib_finish_and_finalize();
}
