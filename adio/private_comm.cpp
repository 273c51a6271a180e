// piox's private duplicates of a caller's communicator: see piox_comm.h.
#include "piox_comm.h"

namespace {

bool predefined(MPI_Errhandler handler)
{
#ifdef MPI_ERRORS_ABORT
    if (handler == MPI_ERRORS_ABORT)
        return true;
#endif
    return handler == MPI_ERRORS_RETURN || handler == MPI_ERRORS_ARE_FATAL;
}

}  // namespace

extern "C" int piox_comm_dup_private(MPI_Comm comm, MPI_Comm *dup)
{
    if (dup == nullptr)
        return MPI_ERR_ARG;
    *dup = MPI_COMM_NULL;
    // MPI calls the handler of the communicator being duplicated when the duplicate
    // cannot be made; the caller's, fatal by default, must not see piox's failure.
    MPI_Errhandler callers = MPI_ERRHANDLER_NULL;
    int rc = PMPI_Comm_get_errhandler(comm, &callers);
    if (rc != MPI_SUCCESS)
        return rc;
    PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    rc = PMPI_Comm_dup(comm, dup);
    PMPI_Comm_set_errhandler(comm, callers);
    if (!predefined(callers))
        PMPI_Errhandler_free(&callers);  // the reference the query took
    if (rc != MPI_SUCCESS) {
        *dup = MPI_COMM_NULL;
        return rc;
    }
    return PMPI_Comm_set_errhandler(*dup, MPI_ERRORS_RETURN);
}
