// See lockless.h.
#include "lockless.h"

#include "piox_fsprobe.h"
#include "piox_log.h"

#include <string>

namespace piox::mpiio {

int file_is_lockless(MPI_Comm comm, const char *filename, LocklessPolicy policy, bool *lockless)
{
    if (policy != LocklessPolicy::detect) {
        *lockless = policy == LocklessPolicy::lockless;
        return MPI_SUCCESS;
    }
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    int answer = PIOX_LOCKS_UNKNOWN;
    if (rank == 0)
        answer = piox_probe_fcntl_locks(filename);
    int rc = PMPI_Bcast(&answer, 1, MPI_INT, 0, comm);
    *lockless = answer == PIOX_LOCKS_FAIL;
    piox_debug("'%s': fcntl locks %s", filename,
               answer == PIOX_LOCKS_WORK   ? "work"
               : answer == PIOX_LOCKS_FAIL ? "fail: lockless file system, ROMIO's write "
                                             "data sieving turned off"
                                           : "could not be probed: assumed to work");
    return rc;
}

int info_for_lockless(MPI_Info info, MPI_Info *out)
{
    int rc = info == MPI_INFO_NULL ? PMPI_Info_create(out) : PMPI_Info_dup(info, out);
    if (rc != MPI_SUCCESS || !library_is_romio())
        return rc;
    char value[MPI_MAX_INFO_VAL + 1] = {};
    int found = 0;
    PMPI_Info_get(*out, "romio_ds_write", MPI_MAX_INFO_VAL, value, &found);
    if (found && std::string(value) != "disable")
        piox_warn("hint romio_ds_write=%s overridden: write data sieving takes fcntl locks, "
                  "which fail on this file system", value);
    return PMPI_Info_set(*out, "romio_ds_write", "disable");
}

}  // namespace piox::mpiio
