// The life of a file's shared pointer: see sfp_file.h.
#include "sfp_file.h"

#include "piox_log.h"
#include "piox_node.h"
#include "piox_comm.h"

namespace piox::mpiio {

int attach(MPI_Comm comm, const char *filename, MPI_Offset initial, const SfpOptions &options,
           std::unique_ptr<SfpFile> *out)
{
    auto file = std::make_unique<SfpFile>();
    file->options = options;
    // Asked of the caller's communicator before it is duplicated: the answer is kept
    // there and copied to the duplicates, so the transport's choice below, atomic
    // mode's lock and every later file opened on it (or on a duplicate, as HDF5
    // makes for each file) skip the question's five collectives.
    int one_node = 0;
    int rc = piox_comm_on_one_node(comm, &one_node);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = piox_comm_dup_private(comm, &file->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = piox_sfp_create(file->comm, initial, options.transport, &file->pointer);
    if (rc != MPI_SUCCESS) {
        PMPI_Comm_free(&file->comm);
        return rc;
    }
    piox_debug("'%s': shared file pointer over %s, initial position %lld, ordered I/O %s",
               filename, piox_sfp_transport_name(file->pointer),
               static_cast<long long>(initial),
               options.collective_ordered_io ? "collective" : "independent");
    *out = std::move(file);
    return MPI_SUCCESS;
}

int detach(SfpFile &file)
{
    int rc = piox_sfp_free(&file.pointer);
    int rc2 = PMPI_Comm_free(&file.comm);
    return rc != MPI_SUCCESS ? rc : rc2;
}

int reset_shared_pointer(SfpFile &file)
{
    return piox_sfp_update(file.pointer, PIOX_SFP_SET, 0, nullptr);
}

}  // namespace piox::mpiio
