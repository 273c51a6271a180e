/*
 * file_errhandlers DIR [fatal] - MPI-IO errors reach the file's error handler as
 * the MPI standard says, as they do with the ROMIO inside MPICH: test
 * test_romio_driver_errors.py runs it against stock MPICH and against the
 * standalone libromio (scripts/build-romio, patch 0008), which used to abort
 * instead of calling a user's handler.
 *
 * A handler made with MPI_File_create_errhandler and set on a file is called once
 * per failed call, with that file and a code of the right class, and the call
 * returns that code: writing a read-only file, a negative displacement, a bad
 * whence, MPI_File_call_errhandler. The
 * handler set on MPI_FILE_NULL sees a failed MPI_File_open. MPI_File_get_errhandler
 * gives back what was set, and freeing the handle keeps the file's handler.
 *
 * With "fatal": MPI_ERRORS_ARE_FATAL on the file, then a negative displacement:
 * the job must abort (the test checks the exit status and that no rank went on).
 */
#include "testlib.h"

#include <string.h>

static int calls, seen_class;
static MPI_File seen_file;

static void remember(MPI_File *fh, int *code, ...)
{
    calls++;
    seen_file = *fh;
    MPI_Error_class(*code, &seen_class);
}

/* `code` must have come back from a call that went through the handler once,
 * with file `fh` and class `expected`. */
static void check_handled(const char *what, int code, MPI_File fh, int expected)
{
    int returned_class = MPI_SUCCESS;
    if (code != MPI_SUCCESS)
        MPI_Error_class(code, &returned_class);
    CHECK(calls == 1, "%s: the handler ran %d times", what, calls);
    CHECK(seen_file == fh, "%s: the handler got another file", what);
    CHECK(seen_class == expected, "%s: the handler saw class %d, expected %d", what, seen_class,
          expected);
    CHECK(returned_class == expected, "%s: returned class %d, expected %d", what, returned_class,
          expected);
    calls = 0;
    seen_class = -1;
    seen_file = MPI_FILE_NULL;
}

int main(int argc, char **argv)
{
    char dir[3000], path[4096], buf[8] = "abcdefg";
    MPI_File fh, missing = MPI_FILE_NULL;
    MPI_Errhandler handler, got;
    int code;

    if (!testlib_start_in_dir(&argc, &argv, dir, sizeof dir))
        return 2;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(path, sizeof path, "%s/file_errhandlers.%d", dir, rank);
    CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                            MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_close(&fh));

    if (argc > 2 && strcmp(argv[2], "fatal") == 0) {
        CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
        CHECK_MPI(MPI_File_set_errhandler(fh, MPI_ERRORS_ARE_FATAL));
        MPI_File_set_view(fh, -1, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
        printf("rank %d: still running after an error under MPI_ERRORS_ARE_FATAL\n", rank);
        MPI_Finalize();
        return 0;
    }

    CHECK_MPI(MPI_File_create_errhandler(remember, &handler));
    CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_set_errhandler(fh, handler));
    CHECK_MPI(MPI_File_get_errhandler(fh, &got));
    CHECK(got == handler, "MPI_File_get_errhandler gave another handler");
    MPI_Errhandler_free(&got);
    MPI_Errhandler_free(&handler); /* the file keeps its handler */

    code = MPI_File_write(fh, buf, 4, MPI_CHAR, MPI_STATUS_IGNORE);
    check_handled("write to a read-only file", code, fh, MPI_ERR_READ_ONLY);

    code = MPI_File_set_view(fh, -1, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    check_handled("negative displacement", code, fh, MPI_ERR_ARG);

    code = MPI_File_seek(fh, 0, 12345);
    check_handled("bad whence", code, fh, MPI_ERR_ARG);

    code = MPI_File_call_errhandler(fh, MPI_ERR_OTHER);
    CHECK(code == MPI_SUCCESS, "MPI_File_call_errhandler returned %d", code);
    check_handled("MPI_File_call_errhandler", MPI_ERR_OTHER, fh, MPI_ERR_OTHER);

    CHECK_MPI(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    code = MPI_File_seek(fh, 0, 12345);
    CHECK(code != MPI_SUCCESS && calls == 0, "MPI_ERRORS_RETURN: code %d, handler ran %d times",
          code, calls);
    CHECK_MPI(MPI_File_close(&fh));

    /* The handler on MPI_FILE_NULL sees errors of MPI_File_open. */
    CHECK_MPI(MPI_File_create_errhandler(remember, &handler));
    CHECK_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, handler));
    snprintf(path, sizeof path, "%s/no-such-dir/file", dir);
    code = MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &missing);
    check_handled("open of a missing file", code, MPI_FILE_NULL, MPI_ERR_NO_SUCH_FILE);
    CHECK_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    MPI_Errhandler_free(&handler);

    return testlib_finish_and_finalize();
}
