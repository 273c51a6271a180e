/* jacobi_kernel.h - the 2-D Jacobi step that the DesyncFS example and its plain-MPI
 * twin share, so that both give the same bits (issue 18: bit-identical results; no
 * -ffast-math, and the sum's order is fixed here).
 *
 * The grid is n x n interior points, (i, j) with 0 <= i, j < n, row-major, inside a
 * fixed boundary ring: jacobi_boundary gives the value of a point just outside. The
 * interior starts at 0; each step replaces every point by the mean of its four
 * neighbours of the previous step. */
#ifndef DESYNC_JACOBI_KERNEL_H
#define DESYNC_JACOBI_KERNEL_H

/* The boundary ring: 1 along the top edge (i = -1), i/n down the left edge (j = -1),
 * 0 along the others. Any fixed values would do; these make every point differ. */
static inline double jacobi_boundary(long i, long j, long n)
{
    if (i < 0)
        return 1.0;
    if (j < 0)
        return (double)i / (double)n;
    return 0.0;
}

/* The new value of a point from its four neighbours, in this order only. */
static inline double jacobi_point(double up, double down, double left, double right)
{
    return 0.25 * ((up + down) + (left + right));
}

#endif
