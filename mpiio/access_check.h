// Validation shared by every shared-pointer data access: the argument checks MPI-IO
// makes before touching the pointer, so that a refused access never moves it.
#ifndef PIOX_MPIIO_ACCESS_CHECK_H
#define PIOX_MPIIO_ACCESS_CHECK_H

#include "sfp_file.h"

namespace piox::mpiio {

enum class Direction { read, write };

// Checks an access of count items of datatype on file (count >= 0, a valid datatype
// whose size is a whole number of etypes, an access mode that allows the direction,
//). On success returns
// MPI_SUCCESS and the access length in etypes; otherwise an error code whose message
// names the routine, the file and the cause. Raises nothing.
int check_access(const SfpFile &file, const char *routine, Direction direction, int count,
                 MPI_Datatype datatype, MPI_Offset *etypes);

}  // namespace piox::mpiio

#endif
