// Datatype -> TypeMap: walks a datatype's constructors (MPI_Type_get_envelope and
// MPI_Type_get_contents) down to named types and lays out their bytes.
#ifndef PIOX_ADIO_FLATTEN_H
#define PIOX_ADIO_FLATTEN_H

#include "typemap.h"

#include <mpi.h>

namespace piox::adio {

// `type` must be a valid handle (see view.cpp for how that is checked without
// risking MPI's fatal error handler). Returns an MPI error code; MPI_ERR_TYPE for
// a combiner or argument it cannot lay out. May throw std::bad_alloc.
int flatten_datatype(MPI_Datatype type, TypeMap *map);

}  // namespace piox::adio

#endif
