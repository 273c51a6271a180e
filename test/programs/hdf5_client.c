/*
 * hdf5_client FILE ATOMIC - a real client: parallel HDF5 (the mpio driver) writes
 * one 2-D dataset of ints, ROWS x COLS, in three ways, then reads it back whole:
 *
 *   1. collective: rank r writes rows [r*ROWS/P, (r+1)*ROWS/P) (a contiguous block);
 *   2. independent: rank r overwrites every column c with c % P == r of the first
 *      STRIPED_ROWS rows (a strided hyperslab: HDF5 turns it into an MPI file view
 *      with holes), with the value striped_value(row, c);
 *   3. collective again: the same striped hyperslab of rows STRIPED_ROWS..2*STRIPED_ROWS,
 *      interleaved between processes (HDF5's collective I/O).
 *
 * ATOMIC=1 sets MPI atomic mode through H5Fset_mpi_atomicity. After H5Fflush and a
 * barrier every rank reads the whole dataset and checks every element; the file is
 * closed, and the caller checks it once more with serial h5py. Element values:
 * block_value(row, col) = row * 1000 + col; striped_value(row, col) = -(row * 1000 + col) - 1.
 */
#include <hdf5.h>

#include "testlib.h"

#define ROWS 64
#define COLS 96
#define STRIPED_ROWS 8

static int block_value(int row, int col) { return row * 1000 + col; }
static int striped_value(int row, int col) { return -(row * 1000 + col) - 1; }

static int expected_value(int row, int col)
{
    return row < 2 * STRIPED_ROWS ? striped_value(row, col) : block_value(row, col);
}

static hid_t transfer_list(H5FD_mpio_xfer_t mode)
{
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, mode);
    return dxpl;
}

/* Writes values (count[0] x count[1], row-major) to the hyperslab start/stride/count
 * of dset, in transfer mode `mode`; `what` names it in a failure. */
static void write_hyperslab(hid_t dset, const hsize_t start[2], const hsize_t stride[2],
                            const hsize_t count[2], H5FD_mpio_xfer_t mode, const int *values,
                            const char *what)
{
    hid_t file_space = H5Dget_space(dset), mem_space = H5Screate_simple(2, count, NULL);
    H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, stride, count, NULL);
    hid_t dxpl = transfer_list(mode);
    CHECK(H5Dwrite(dset, H5T_NATIVE_INT, mem_space, file_space, dxpl, values) >= 0,
          "H5Dwrite of %s from row %llu failed", what, (unsigned long long)start[0]);
    H5Pclose(dxpl);
    H5Sclose(mem_space);
    H5Sclose(file_space);
}

/* Writes the columns c % size == rank of rows [first, first + STRIPED_ROWS). */
static void write_striped(hid_t dset, int first, int rank, int size, H5FD_mpio_xfer_t mode)
{
    const int columns = (COLS - rank + size - 1) / size;
    int *values = malloc(sizeof(int) * STRIPED_ROWS * (size_t)columns);
    for (int r = 0; r < STRIPED_ROWS; r++)
        for (int k = 0; k < columns; k++)
            values[r * columns + k] = striped_value(first + r, rank + k * size);
    const hsize_t start[2] = {(hsize_t)first, (hsize_t)rank}, stride[2] = {1, (hsize_t)size};
    const hsize_t count[2] = {STRIPED_ROWS, (hsize_t)columns};
    write_hyperslab(dset, start, stride, count, mode, values, "striped columns");
    free(values);
}

/* Writes this rank's block of whole rows, collectively. */
static void write_block(hid_t dset, int rank, int size)
{
    const int first = rank * ROWS / size, rows = (rank + 1) * ROWS / size - first;
    int *values = malloc(sizeof(int) * (size_t)(rows * COLS + 1));
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < COLS; c++)
            values[r * COLS + c] = block_value(first + r, c);
    const hsize_t start[2] = {(hsize_t)first, 0}, count[2] = {(hsize_t)rows, COLS};
    write_hyperslab(dset, start, NULL, count, H5FD_MPIO_COLLECTIVE, values, "a block of rows");
    free(values);
}

static void check_all(hid_t dset, int rank)
{
    static int values[ROWS][COLS];
    hid_t dxpl = transfer_list(H5FD_MPIO_INDEPENDENT);
    CHECK(H5Dread(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, dxpl, values) >= 0, "H5Dread failed");
    H5Pclose(dxpl);
    int wrong = 0;
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++)
            if (values[r][c] != expected_value(r, c) && wrong++ < 5)
                CHECK(0, "rank %d reads [%d][%d] = %d, expected %d", rank, r, c, values[r][c],
                      expected_value(r, c));
    CHECK(wrong == 0, "rank %d: %d elements wrong", rank, wrong);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3) {
        fprintf(stderr, "usage: %s FILE ATOMIC\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(file >= 0, "H5Fcreate(%s) failed", argv[1]);
    if (file >= 0) {
        if (atoi(argv[2])) {
            hbool_t flag = 0;
            CHECK(H5Fset_mpi_atomicity(file, 1) >= 0, "H5Fset_mpi_atomicity failed");
            CHECK(H5Fget_mpi_atomicity(file, &flag) >= 0 && flag, "atomic mode is not on");
        }
        hsize_t dims[2] = {ROWS, COLS};
        hid_t space = H5Screate_simple(2, dims, NULL);
        hid_t dset = H5Dcreate2(file, "values", H5T_NATIVE_INT, space, H5P_DEFAULT,
                                H5P_DEFAULT, H5P_DEFAULT);
        write_block(dset, rank, size);
        MPI_Barrier(MPI_COMM_WORLD);
        write_striped(dset, 0, rank, size, H5FD_MPIO_INDEPENDENT);
        write_striped(dset, STRIPED_ROWS, rank, size, H5FD_MPIO_COLLECTIVE);
        H5Fflush(file, H5F_SCOPE_GLOBAL);
        MPI_Barrier(MPI_COMM_WORLD);
        check_all(dset, rank);
        H5Dclose(dset);
        H5Sclose(space);
        CHECK(H5Fclose(file) >= 0, "H5Fclose failed");
    }
    H5Pclose(fapl);
    return testlib_finish_and_finalize();
}
