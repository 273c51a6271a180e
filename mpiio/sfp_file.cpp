// The life of a file's shared pointer: see sfp_file.h.
#include "sfp_file.h"

#include "piox_log.h"

namespace piox::mpiio {

int attach(MPI_Comm comm, const char *filename, MPI_Offset initial, const SfpOptions &options,
           std::unique_ptr<SfpFile> *out)
{
    auto file = std::make_unique<SfpFile>();
    file->options = options;
    int rc = piox_sfp_create(comm, initial, options.transport, &file->pointer);
    if (rc != MPI_SUCCESS)
        return rc;
    piox_debug("'%s': shared file pointer over %s, initial position %lld, ordered I/O %s",
               filename, piox_sfp_transport_name(file->pointer),
               static_cast<long long>(initial),
               options.collective_ordered_io ? "collective" : "independent");
    *out = std::move(file);
    return MPI_SUCCESS;
}

int detach(SfpFile &file)
{
    return piox_sfp_free(&file.pointer);
}

int reset_shared_pointer(SfpFile &file)
{
    return piox_sfp_update(file.pointer, PIOX_SFP_SET, 0, nullptr);
}

}  // namespace piox::mpiio
