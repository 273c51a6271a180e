/*
 * counting_tool - a minimal PMPI tool, as an I/O monitor such as Darshan is: it
 * defines every MPI-IO routine that writes data, counts the bytes each call writes
 * and passes it on to PMPI_*, and from its own MPI_Finalize writes its totals
 * ("B C": bytes and calls) to $COUNTING_TOOL_OUT.<rank>, as such tools write logs.
 *
 * Preloaded after libpiox (LD_PRELOAD=libpiox.so:libcounting_tool.so) it must see
 * every byte piox moves for the program and reach its MPI_Finalize; preloaded
 * before, piox warns that it cannot see the program's calls.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static long long bytes_written, calls;

static void count(MPI_Count items, MPI_Datatype datatype)
{
    MPI_Count size = 0;
    PMPI_Type_size_x(datatype, &size);
    bytes_written += items * size;
    calls++;
}

/* One wrapper per routine and count form: count, then pass on. */
#define COUNTING(name, params, args)                                                         \
    int MPI_##name params                                                                    \
    {                                                                                        \
        count(count_, datatype);                                                             \
        return PMPI_##name args;                                                             \
    }
#define AT(C, Last) (MPI_File fh, MPI_Offset at, const void *buf, C count_, MPI_Datatype datatype, Last)
#define PTR(C, Last) (MPI_File fh, const void *buf, C count_, MPI_Datatype datatype, Last)
#define AT_ARGS(last) (fh, at, buf, count_, datatype, last)
#define PTR_ARGS(last) (fh, buf, count_, datatype, last)
#define AT_BEGIN(C) (MPI_File fh, MPI_Offset at, const void *buf, C count_, MPI_Datatype datatype)
#define PTR_BEGIN(C) (MPI_File fh, const void *buf, C count_, MPI_Datatype datatype)

#define WRITES(C, c)                                                                          \
    COUNTING(File_write_at##c, AT(C, MPI_Status *s), AT_ARGS(s))                              \
    COUNTING(File_write_at_all##c, AT(C, MPI_Status *s), AT_ARGS(s))                          \
    COUNTING(File_iwrite_at##c, AT(C, MPI_Request *r), AT_ARGS(r))                            \
    COUNTING(File_iwrite_at_all##c, AT(C, MPI_Request *r), AT_ARGS(r))                        \
    COUNTING(File_write##c, PTR(C, MPI_Status *s), PTR_ARGS(s))                               \
    COUNTING(File_write_all##c, PTR(C, MPI_Status *s), PTR_ARGS(s))                           \
    COUNTING(File_iwrite##c, PTR(C, MPI_Request *r), PTR_ARGS(r))                             \
    COUNTING(File_iwrite_all##c, PTR(C, MPI_Request *r), PTR_ARGS(r))                         \
    COUNTING(File_write_shared##c, PTR(C, MPI_Status *s), PTR_ARGS(s))                        \
    COUNTING(File_iwrite_shared##c, PTR(C, MPI_Request *r), PTR_ARGS(r))                      \
    COUNTING(File_write_ordered##c, PTR(C, MPI_Status *s), PTR_ARGS(s))                      \
    COUNTING(File_write_at_all_begin##c, AT_BEGIN(C), (fh, at, buf, count_, datatype))        \
    COUNTING(File_write_all_begin##c, PTR_BEGIN(C), (fh, buf, count_, datatype))              \
    COUNTING(File_write_ordered_begin##c, PTR_BEGIN(C), (fh, buf, count_, datatype))

typedef int IntCount;
WRITES(IntCount, )
#if MPI_VERSION >= 4
typedef MPI_Count LargeCount;
WRITES(LargeCount, _c)
#endif

int MPI_Finalize(void)
{
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *prefix = getenv("COUNTING_TOOL_OUT");
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", prefix != NULL ? prefix : "counting_tool", rank);
    FILE *out = fopen(path, "w");
    if (out != NULL) {
        fprintf(out, "%lld %lld\n", bytes_written, calls);
        fclose(out);
    }
    return PMPI_Finalize();
}
