/*
 * datarep_writes DIR ATOMIC DATAREP - writes through a view whose data
 * representation is DATAREP ("native" or "external32"), from a memory type with
 * holes. Each rank owns 64 bytes of DIR/datarep_writes at displacement 64 * rank,
 * prefilled with 0xAA; its view has etype MPI_INT and the filetype
 * vector(4, 1, 2, MPI_INT), so 4 ints land at bytes 0, 8, 16 and 24 of the part and
 * the holes keep 0xAA. The memory type is vector(4, 1, 2, MPI_INT) too (every other
 * int of the buffer). Each write routine in turn (explicit offset, blocking,
 * collective, nonblocking; individual pointer) writes the 4 ints; every byte of the
 * part is then checked (external32 is big-endian, MPI-3.1 13.5.2), and a read
 * through the same view into the same memory type must give the ints back.
 * ATOMIC=1 sets atomic mode. (piox handed the library packed bytes for such a
 * memory type, which it then could not convert: the ints landed little-endian.)
 */
#include "file_part.h"
#include "testlib.h"

#include <stdint.h>
#include <string.h>

#define PART 64
#define FILL 0xAA
#define INTS 4

static int rank;

/* The 4 bytes of v as the representation stores them. */
static void encode(int32_t v, int external32, unsigned char out[4])
{
    if (!external32) {
        memcpy(out, &v, 4);
        return;
    }
    const uint32_t u = (uint32_t)v;
    for (int i = 0; i < 4; i++)
        out[i] = (unsigned char)(u >> (24 - 8 * i));
}

static void check_part(MPI_File fh, const int ints[INTS], int external32, const char *routine)
{
    unsigned char expected[PART];
    memset(expected, FILL, sizeof expected);
    for (int i = 0; i < INTS; i++)
        encode(ints[i], external32, expected + 8 * i);
    file_part_check(fh, (MPI_Offset)rank * PART, expected, PART, routine);
}

/* Writes the memory (every other int) with routine number `which`; returns its name. */
static const char *write_with(MPI_File fh, int which, const int *memory, MPI_Datatype memtype)
{
    MPI_Request request;
    switch (which) {
    case 0:
        CHECK_MPI(MPI_File_write_at(fh, 0, memory, 1, memtype, MPI_STATUS_IGNORE));
        return "MPI_File_write_at";
    case 1:
        CHECK_MPI(MPI_File_write_at_all(fh, 0, memory, 1, memtype, MPI_STATUS_IGNORE));
        return "MPI_File_write_at_all";
    case 2:
        CHECK_MPI(MPI_File_iwrite_at(fh, 0, memory, 1, memtype, &request));
        CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
        return "MPI_File_iwrite_at";
    case 3:
        CHECK_MPI(MPI_File_iwrite_at_all(fh, 0, memory, 1, memtype, &request));
        CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
        return "MPI_File_iwrite_at_all";
    case 4:
        CHECK_MPI(MPI_File_write_at_all_begin(fh, 0, memory, 1, memtype));
        CHECK_MPI(MPI_File_write_at_all_end(fh, memory, MPI_STATUS_IGNORE));
        return "MPI_File_write_at_all_begin";
    case 5:
        CHECK_MPI(MPI_File_iwrite(fh, memory, 1, memtype, &request));
        CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
        return "MPI_File_iwrite";
    default:
        CHECK_MPI(MPI_File_write(fh, memory, 1, memtype, MPI_STATUS_IGNORE));
        return "MPI_File_write";
    }
}

#define ROUTINES 7

int main(int argc, char **argv)
{
    char dir[3000], path[4096];
    if (!testlib_start_in_dir(&argc, &argv, dir, sizeof dir))
        return 2;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int atomic = argc > 2 && atoi(argv[2]) != 0;
    const char *datarep = argc > 3 ? argv[3] : "native";
    const int external32 = strcmp(datarep, "external32") == 0;
    snprintf(path, sizeof path, "%s/datarep_writes", dir);

    MPI_Datatype every_other;  /* the filetype and the memory type */
    MPI_Type_vector(INTS, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                            &fh));
    CHECK_MPI(MPI_File_set_atomicity(fh, atomic));
    for (int which = 0; which < ROUTINES; which++) {
        int ints[INTS], memory[2 * INTS], back[2 * INTS];
        for (int i = 0; i < INTS; i++) {
            ints[i] = (int)(0x01020304u * (unsigned)(which + 1) + (unsigned)(i << 4) +
                            (unsigned)rank);
            memory[2 * i] = ints[i], memory[2 * i + 1] = -1;
            back[2 * i] = 0, back[2 * i + 1] = -7;
        }
        file_part_fill(fh, (MPI_Offset)rank * PART, PART, FILL);
        CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)rank * PART, MPI_INT, every_other, datarep,
                                    MPI_INFO_NULL));
        const char *routine = write_with(fh, which, memory, every_other);
        check_part(fh, ints, external32, routine);

        CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)rank * PART, MPI_INT, every_other, datarep,
                                    MPI_INFO_NULL));
        for (int nonblocking = 0; nonblocking < 2; nonblocking++) {
            MPI_Request request;
            for (int i = 0; i < INTS; i++)
                back[2 * i] = 0, back[2 * i + 1] = -7;
            if (nonblocking) {
                CHECK_MPI(MPI_File_iread_at(fh, 0, back, 1, every_other, &request));
                CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
            } else {
                CHECK_MPI(MPI_File_read_at(fh, 0, back, 1, every_other, MPI_STATUS_IGNORE));
            }
            for (int i = 0; i < INTS; i++)
                CHECK(back[2 * i] == ints[i] && back[2 * i + 1] == -7,
                      "%s, then %s: int %d is 0x%08x (gap 0x%08x), expected 0x%08x", routine,
                      nonblocking ? "MPI_File_iread_at" : "MPI_File_read_at", i, back[2 * i],
                      back[2 * i + 1], ints[i]);
        }
    }
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Type_free(&every_other);
    return testlib_finish_and_finalize();
}
