// The argument checks MPI-IO makes before an access moves a file pointer, so that a
// refused access never moves it (shared, ordered and individual-pointer routines).
#ifndef PIOX_MPIIO_ACCESS_CHECK_H
#define PIOX_MPIIO_ACCESS_CHECK_H

#include "open_file.h"

namespace piox::mpiio {

// The bytes of count items of datatype. Returns MPI_SUCCESS, MPI_ERR_COUNT (a
// negative count, or more bytes than an MPI_Offset holds) or MPI_ERR_TYPE (a null or
// invalid datatype), as bare classes: the caller says which access it was.
int access_bytes(MPI_Count count, MPI_Datatype datatype, MPI_Offset *bytes);

// Checks an access of count items of datatype on file: count >= 0, a valid datatype
// whose size is a whole number of etypes, an access mode that allows the direction,
// a length MPI_Offset can hold. On success returns MPI_SUCCESS and the access length
// in etypes; otherwise an error code whose message names the routine, the file and
// the cause. Raises nothing.
int check_access(const OpenFile &file, const char *routine, Direction direction,
                 MPI_Count count, MPI_Datatype datatype, MPI_Offset *etypes);

}  // namespace piox::mpiio

#endif
