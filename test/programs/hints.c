/*
 * hints DIR - the piox_* info hints at MPI_File_open:
 *   piox_sfp=off         leaves the shared pointer to the MPI library; under ROMIO
 *                        its hidden .shfp file then exists while the file is open,
 *                        which rank 0 reports as hidden_file_with_piox_sfp_off=1;
 *   piox_sfp=maybe       a bad value: a warning, then the default (piox) applies;
 *   values that differ between processes make MPI_File_open fail with
 *                        MPI_ERR_NOT_SAME on every process.
 */
#include "testlib.h"

#include <dirent.h>
#include <string.h>

static char dir[3000];

/* Whether DIR holds a ROMIO hidden shared-pointer file right now. */
static int hidden_file_exists(void)
{
    int found = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
        found |= strstr(e->d_name, ".shfp") != NULL;
    if (d != NULL)
        closedir(d);
    return found;
}

static int open_with_hint(const char *name, const char *key, const char *value, MPI_File *fh)
{
    char path[4096];
    MPI_Info info;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    MPI_Info_create(&info);
    MPI_Info_set(info, key, value);
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, fh);
    MPI_Info_free(&info);
    return rc;
}

int main(int argc, char **argv)
{
    if (!testlib_start_in_dir(&argc, &argv, dir, sizeof dir))
        return 2;
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_File fh;
    char byte = 'x';

    /* piox_sfp=off: the library's own shared pointer (a hidden file, for ROMIO). */
    CHECK_MPI(open_with_hint("off", "piox_sfp", "off", &fh));
    CHECK_MPI(MPI_File_write_shared(fh, &byte, 1, MPI_CHAR, MPI_STATUS_IGNORE));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("hidden_file_with_piox_sfp_off=%d\n", hidden_file_exists());
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_close(&fh));

    /* A bad value falls back to the default, with a warning. */
    CHECK_MPI(open_with_hint("bad-value", "piox_sfp", "maybe", &fh));
    CHECK_MPI(MPI_File_write_shared(fh, &byte, 1, MPI_CHAR, MPI_STATUS_IGNORE));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("hidden_file_with_bad_value=%d\n", hidden_file_exists());
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_close(&fh));

    /* Settings that differ between processes are refused everywhere. */
    if (size > 1) {
        int rc = open_with_hint("differ", "piox_ordered_io", rank == 0 ? "collective" : "independent",
                                &fh);
        int error_class = MPI_SUCCESS;
        MPI_Error_class(rc, &error_class);
        CHECK(error_class == MPI_ERR_NOT_SAME, "differing hints: class %d, expected MPI_ERR_NOT_SAME",
              error_class);
        if (rc == MPI_SUCCESS)
            MPI_File_close(&fh);
    }
    return testlib_finish_and_finalize();
}
