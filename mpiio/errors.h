// Reporting MPI-IO errors the way MPI does: through the file's error handler, with
// an MPI error class and a message naming the file and the cause.
#ifndef PIOX_MPIIO_ERRORS_H
#define PIOX_MPIIO_ERRORS_H

#include <mpi.h>

#include <string>

namespace piox::mpiio {

// An error code of class error_class whose MPI_Error_string includes message, and
// after it the cause's (an error code a lower layer returned, or MPI_SUCCESS for
// none). Where the MPI library cannot make one, the bare class.
int error_code(int error_class, const std::string &message, int cause = MPI_SUCCESS);

// Invokes fh's error handler (the default file error handler when fh is
// MPI_FILE_NULL) with error_code(error_class, message, cause) and returns that code.
int raise_error(MPI_File fh, int error_class, const std::string &message, int cause = MPI_SUCCESS);

// Passes an MPI error code returned by a lower layer to fh's error handler.
int raise_code(MPI_File fh, int code);

}  // namespace piox::mpiio

#endif
