/*
 * hdf5_reader FILE DATASET PATTERN[,PATTERN...] - a real client: parallel HDF5 (the
 * mpio driver) reads the 2-D dataset DATASET of ints, written beforehand with value
 * row * 1000 + col, with collective transfers (H5FD_MPIO_COLLECTIVE), each rank its
 * hyperslab of PATTERN; each PATTERN in turn, in an open of the file of its own:
 *
 *   rows     a block of whole rows (one run of the file per rank);
 *   blocks   a rectangle of a 2-D grid of the processes (MPI_Dims_create): a run per
 *            row, the ranks' runs interleaved;
 *   columns  every column c with c % nprocs == rank (an element per run, interleaved);
 *   all      the whole dataset, on every rank.
 *
 * Every rank checks every element it read, and that HDF5 really read collectively
 * (H5Pget_mpio_actual_io_mode). Rank 0 prints " No Errors" when all is right.
 */
#include <hdf5.h>
#include <string.h>

#include "testlib.h"

static int value(hsize_t row, hsize_t col) { return (int)(row * 1000 + col); }

/* This rank's hyperslab of a rows x cols dataset under `pattern`; 0 for an unknown one. */
static int hyperslab(const char *pattern, int rank, int size, const hsize_t dims[2],
                     hsize_t start[2], hsize_t stride[2], hsize_t count[2])
{
    stride[0] = stride[1] = 1;
    start[0] = start[1] = 0;
    count[0] = dims[0], count[1] = dims[1];
    if (!strcmp(pattern, "rows")) {
        start[0] = dims[0] * (hsize_t)rank / (hsize_t)size;
        count[0] = dims[0] * (hsize_t)(rank + 1) / (hsize_t)size - start[0];
    } else if (!strcmp(pattern, "blocks")) {
        int grid[2] = {0, 0};
        MPI_Dims_create(size, 2, grid);
        const hsize_t at[2] = {(hsize_t)(rank / grid[1]), (hsize_t)(rank % grid[1])};
        for (int d = 0; d < 2; d++) {
            start[d] = dims[d] * at[d] / (hsize_t)grid[d];
            count[d] = dims[d] * (at[d] + 1) / (hsize_t)grid[d] - start[d];
        }
    } else if (!strcmp(pattern, "columns")) {
        start[1] = (hsize_t)rank;
        stride[1] = (hsize_t)size;
        count[1] = (dims[1] - (hsize_t)rank + (hsize_t)size - 1) / (hsize_t)size;
    } else if (strcmp(pattern, "all")) {
        return 0;
    }
    return 1;
}

static void read_and_check(hid_t dset, const char *pattern, int rank, int size)
{
    hid_t file_space = H5Dget_space(dset);
    hsize_t dims[2], start[2], stride[2], count[2];
    CHECK(H5Sget_simple_extent_ndims(file_space) == 2, "the dataset is not 2-D");
    H5Sget_simple_extent_dims(file_space, dims, NULL);
    if (!hyperslab(pattern, rank, size, dims, start, stride, count)) {
        CHECK(0, "unknown pattern %s", pattern);
        H5Sclose(file_space);
        return;
    }
    H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, stride, count, NULL);
    hid_t mem_space = H5Screate_simple(2, count, NULL);
    int *values = malloc(sizeof(int) * (size_t)(count[0] * count[1] + 1));
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    CHECK(H5Dread(dset, H5T_NATIVE_INT, mem_space, file_space, dxpl, values) >= 0,
          "H5Dread of %s failed", pattern);
    H5D_mpio_actual_io_mode_t mode = H5D_MPIO_NO_COLLECTIVE;
    H5Pget_mpio_actual_io_mode(dxpl, &mode);
    CHECK(mode != H5D_MPIO_NO_COLLECTIVE, "HDF5 read %s independently", pattern);
    int wrong = 0;
    for (hsize_t i = 0; i < count[0]; i++)
        for (hsize_t j = 0; j < count[1]; j++) {
            const hsize_t row = start[0] + i * stride[0], col = start[1] + j * stride[1];
            const int got = values[i * count[1] + j];
            if (got != value(row, col) && wrong++ < 5)
                CHECK(0, "%s: [%llu][%llu] = %d, expected %d", pattern, (unsigned long long)row,
                      (unsigned long long)col, got, value(row, col));
        }
    CHECK(wrong == 0, "%s: %d of %llu elements wrong", pattern, wrong,
          (unsigned long long)(count[0] * count[1]));
    free(values);
    H5Pclose(dxpl);
    H5Sclose(mem_space);
    H5Sclose(file_space);
}

/* Opens the file, reads and checks the rank's hyperslab of `pattern`, closes it. */
static void read_pattern(const char *path, const char *name, const char *pattern, int rank,
                         int size)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    CHECK(file >= 0, "H5Fopen(%s) failed", path);
    if (file >= 0) {
        hid_t dset = H5Dopen2(file, name, H5P_DEFAULT);
        CHECK(dset >= 0, "no dataset %s", name);
        if (dset >= 0) {
            read_and_check(dset, pattern, rank, size);
            H5Dclose(dset);
        }
        CHECK(H5Fclose(file) >= 0, "H5Fclose failed");
    }
    H5Pclose(fapl);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 4) {
        fprintf(stderr, "usage: %s FILE DATASET PATTERN[,PATTERN...]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    char *rest = NULL;
    for (char *pattern = strtok_r(argv[3], ",", &rest); pattern;
         pattern = strtok_r(NULL, ",", &rest))
        read_pattern(argv[1], argv[2], pattern, rank, size);
    return testlib_finish_and_finalize();
}
