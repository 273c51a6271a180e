/*
 * errors DIR - bad input to the shared-pointer routines is reported through the
 * file's error handler with the right error class, never an abort, and a refused
 * access never moves the shared pointer; MPI_File_set_view arguments that must agree
 * and do not are MPI_ERR_NOT_SAME on every process. Every file's error handler is the default
 * MPI_ERRORS_RETURN except where a test installs its own.
 */
#include "testlib.h"

#include <string.h>

static char dir[3000];

static void path_of(char *out, const char *name) { snprintf(out, 4096, "%s/%s", dir, name); }

static MPI_Offset shared_position(MPI_File fh)
{
    MPI_Offset at = -1;
    CHECK_MPI(MPI_File_get_position_shared(fh, &at));
    return at;
}

static void test_read_only(void)
{
    char path[4096], buf[8] = "abcdefg";
    MPI_File fh;
    path_of(path, "read-only");
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                            MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_close(&fh));
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    MPI_Request request = MPI_REQUEST_NULL;
    CHECK_ERROR_CLASS(MPI_File_write_shared(fh, buf, 8, MPI_CHAR, MPI_STATUS_IGNORE),
                      MPI_ERR_READ_ONLY);
    CHECK_ERROR_CLASS(MPI_File_iwrite_shared(fh, buf, 8, MPI_CHAR, &request), MPI_ERR_READ_ONLY);
    CHECK_ERROR_CLASS(MPI_File_write_ordered(fh, buf, 8, MPI_CHAR, MPI_STATUS_IGNORE),
                      MPI_ERR_READ_ONLY);
    CHECK(shared_position(fh) == 0, "a refused write moved the shared pointer");

    /* The message names the file and the cause. */
    char message[MPI_MAX_ERROR_STRING];
    int len = 0, code = MPI_File_write_shared(fh, buf, 8, MPI_CHAR, MPI_STATUS_IGNORE);
    MPI_Error_string(code, message, &len);
    CHECK(strstr(message, path) != NULL && strstr(message, "RDONLY") != NULL,
          "error string \"%s\" should name %s and MPI_MODE_RDONLY", message, path);
    CHECK_MPI(MPI_File_close(&fh));
}

static void test_bad_counts_and_types(MPI_File fh)
{
    char buf[64] = {0};
    MPI_Status status;
    CHECK_ERROR_CLASS(MPI_File_write_shared(fh, buf, -1, MPI_BYTE, &status), MPI_ERR_COUNT);
    CHECK_ERROR_CLASS(MPI_File_read_shared(fh, buf, -5, MPI_BYTE, &status), MPI_ERR_COUNT);
    CHECK_ERROR_CLASS(MPI_File_write_ordered(fh, buf, -1, MPI_BYTE, &status), MPI_ERR_COUNT);
    CHECK_ERROR_CLASS(MPI_File_write_shared(fh, buf, 1, MPI_DATATYPE_NULL, &status), MPI_ERR_TYPE);

    /* etype MPI_INT: 3 chars, or a committed 6-byte type, are not whole etypes. */
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    MPI_Datatype six_bytes;
    MPI_Type_contiguous(3, MPI_SHORT, &six_bytes);
    MPI_Type_commit(&six_bytes);
    CHECK_ERROR_CLASS(MPI_File_write_shared(fh, buf, 3, MPI_CHAR, &status), MPI_ERR_TYPE);
    CHECK_ERROR_CLASS(MPI_File_write_shared(fh, buf, 1, six_bytes, &status), MPI_ERR_TYPE);
    CHECK_ERROR_CLASS(MPI_File_write_ordered(fh, buf, 1, six_bytes, &status), MPI_ERR_TYPE);
    CHECK(shared_position(fh) == 0, "refused accesses moved the shared pointer");
    /* ... while two of them (12 bytes = 3 etypes) are fine. */
    CHECK_MPI(MPI_File_write_ordered(fh, buf, 2, six_bytes, &status));
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(shared_position(fh) == 3 * size, "position %lld after ordered writes, expected %d",
          (long long)shared_position(fh), 3 * size);
    MPI_Type_free(&six_bytes);
}

static void test_bad_seeks_and_split(MPI_File fh)
{
    int rank = 0;
    char buf[4];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK_MPI(MPI_File_seek_shared(fh, 2, MPI_SEEK_SET));
    CHECK_ERROR_CLASS(MPI_File_seek_shared(fh, 0, 12345), MPI_ERR_ARG);
    CHECK_ERROR_CLASS(MPI_File_seek_shared(fh, -1, MPI_SEEK_SET), MPI_ERR_ARG);
    CHECK_ERROR_CLASS(MPI_File_seek_shared(fh, -3, MPI_SEEK_CUR), MPI_ERR_ARG);
    /* Arguments that differ between processes are refused on every process. */
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 1)
        CHECK_ERROR_CLASS(MPI_File_seek_shared(fh, rank, MPI_SEEK_SET), MPI_ERR_ARG);
    CHECK(shared_position(fh) == 2, "refused seeks moved the shared pointer to %lld",
          (long long)shared_position(fh));
    CHECK_ERROR_CLASS(MPI_File_write_ordered_end(fh, buf, MPI_STATUS_IGNORE), MPI_ERR_IO);
    CHECK_ERROR_CLASS(MPI_File_get_position_shared(fh, NULL), MPI_ERR_ARG);
}

/* MPI_File_set_view's data representation and etype extent must be the same on
 * every process (MPI-3.1 13.3); filetypes and displacements may differ. */
static void test_views_that_must_agree(MPI_File fh)
{
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char message[MPI_MAX_ERROR_STRING];
    int len = 0, code;
    /* Same extent, different types and displacements: fine. */
    CHECK_MPI(MPI_File_set_view(fh, 4 * rank, rank % 2 ? MPI_FLOAT : MPI_INT, MPI_INT, "native",
                                MPI_INFO_NULL));
    if (size < 2)
        return;
    CHECK_MPI(MPI_File_seek_shared(fh, 1, MPI_SEEK_SET));
    MPI_Datatype type = rank == 0 ? MPI_DOUBLE : MPI_INT;
    code = MPI_File_set_view(fh, 0, type, type, "native", MPI_INFO_NULL);
    CHECK_ERROR_CLASS(code, MPI_ERR_NOT_SAME);
    MPI_Error_string(code, message, &len);
    CHECK(strstr(message, "etype's extent differs") != NULL, "error string \"%s\"", message);
    code = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, rank == 0 ? "native" : "external32", MPI_INFO_NULL);
    CHECK_ERROR_CLASS(code, MPI_ERR_NOT_SAME);
    MPI_Error_string(code, message, &len);
    CHECK(strstr(message, "data representation differs") != NULL, "error string \"%s\"", message);
    /* The names are case-blind, as ROMIO's are. */
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, rank == 0 ? "native" : "NATIVE", MPI_INFO_NULL));
    CHECK(shared_position(fh) == 0, "set_view left the shared pointer at %lld", (long long)shared_position(fh));
}

static int handler_class = -1;
static void remember_class(MPI_File *fh, int *code, ...)
{
    (void)fh;
    MPI_Error_class(*code, &handler_class);
}

static void test_user_error_handler(MPI_File fh)
{
    MPI_Errhandler handler;
    char buf[4];
    CHECK_MPI(MPI_File_create_errhandler(remember_class, &handler));
    CHECK_MPI(MPI_File_set_errhandler(fh, handler));
    MPI_File_write_shared(fh, buf, -2, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK(handler_class == MPI_ERR_COUNT, "the file's error handler saw class %d", handler_class);
    CHECK_MPI(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    MPI_Errhandler_free(&handler);
}

static void test_closed_handles(void)
{
    char path[4096], buf[4] = "abc";
    MPI_File fh, stale;
    path_of(path, "closed");
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                            &fh));
    stale = fh;
    CHECK_MPI(MPI_File_close(&fh));
    CHECK(fh == MPI_FILE_NULL, "MPI_File_close did not set the handle to MPI_FILE_NULL");
    CHECK_ERROR_CLASS(MPI_File_write_shared(stale, buf, 3, MPI_CHAR, MPI_STATUS_IGNORE),
                      MPI_ERR_FILE);
    CHECK_ERROR_CLASS(MPI_File_write_shared(MPI_FILE_NULL, buf, 3, MPI_CHAR, MPI_STATUS_IGNORE),
                      MPI_ERR_FILE);
    MPI_Offset at;
    CHECK_ERROR_CLASS(MPI_File_get_position_shared(stale, &at), MPI_ERR_FILE);
}

int main(int argc, char **argv)
{
    if (!testlib_start_in_dir(&argc, &argv, dir, sizeof dir))
        return 2;
    test_read_only();

    char path[4096];
    MPI_File fh;
    path_of(path, "bad-input");
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                            &fh));
    test_bad_counts_and_types(fh);
    test_bad_seeks_and_split(fh);
    test_user_error_handler(fh);
    test_views_that_must_agree(fh);
    CHECK_MPI(MPI_File_close(&fh));
    test_closed_handles();

    return testlib_finish_and_finalize();
}
