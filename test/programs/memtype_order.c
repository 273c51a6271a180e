/*
 * memtype_order.c - writes through memory types whose size, extent and true extent
 * agree although their bytes are not one block in order, and checks the file byte
 * by byte: ints at displacements 0, 0 and 8 (a byte taken twice, one skipped), and
 * ints at 4 and 0 (reversed). An MPI-IO library that calls such a type contiguous
 * writes the buffer as it lies (ROMIO's portable iscontig must not: its patch 0012
 * packs two copies and compares). Then a read through the reversed type (a type
 * with overlapping entries may not receive): the file's ints land where the
 * typemap says.
 *
 * Usage: memtype_order DIR. Each rank writes and reads its own 20 bytes of
 * DIR/memtype_order. Rank 0 prints " No Errors" when every rank found every byte
 * right; a wrong int or a failed call is reported (testlib.h) and the program
 * exits 1.
 */
#include "testlib.h"

static MPI_Datatype hindexed_ints(int n, const MPI_Aint *displacements)
{
    int lengths[3] = {1, 1, 1};
    MPI_Datatype type;
    MPI_Type_create_hindexed(n, lengths, displacements, MPI_INT, &type);
    MPI_Type_commit(&type);
    return type;
}

static void expect(const char *what, const int *got, const int *want, int n)
{
    for (int i = 0; i < n; i++)
        CHECK(got[i] == want[i], "%s: int %d is %d, expected %d", what, i, got[i], want[i]);
}

int main(int argc, char **argv)
{
    char dir[3000], path[4096];
    int rank;
    if (!testlib_start_in_dir(&argc, &argv, dir, sizeof dir))
        return 2;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(path, sizeof path, "%s/memtype_order", dir);
    const MPI_Aint twice[3] = {0, 0, 8}, reversed[2] = {4, 0};
    MPI_Datatype twice_type = hindexed_ints(3, twice), reversed_type = hindexed_ints(2, reversed);
    const MPI_Offset at = (MPI_Offset)rank * 20;
    const int a = 100 * rank + 1, b = a + 1, c = a + 2;

    MPI_File fh = MPI_FILE_NULL;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                            MPI_INFO_NULL, &fh));
    const int source[3] = {a, b, c};
    CHECK_MPI(MPI_File_write_at(fh, at, source, 1, twice_type, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_write_at(fh, at + 12, source, 1, reversed_type, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);

    int file[5] = {0};
    CHECK_MPI(MPI_File_read_at(fh, at, file, 5, MPI_INT, MPI_STATUS_IGNORE));
    const int written[5] = {a, a, c, b, a};
    expect("file after the writes", file, written, 5);

    /* the region's ints 3 and 4 (b, a) into displacements 4 and 0 */
    int reversed_read[2] = {-1, -1};
    CHECK_MPI(MPI_File_read_at(fh, at + 12, reversed_read, 1, reversed_type, MPI_STATUS_IGNORE));
    const int reversed_want[2] = {a, b};
    expect("read through ints at 4, 0", reversed_read, reversed_want, 2);
    CHECK_MPI(MPI_File_close(&fh));

    MPI_Type_free(&twice_type);
    MPI_Type_free(&reversed_type);
    return testlib_finish_and_finalize();
}
