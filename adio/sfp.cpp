// The C ABI of the shared file pointer (piox_sfp.h): picks a transport at creation
// and forwards to it.
#include "one_node.h"
#include "piox_log.h"
#include "piox_sfp.h"
#include "sfp_transport.h"
#include "piox_comm.h"

#include <memory>

struct piox_sfp {
    std::unique_ptr<piox::adio::SfpTransport> transport;
};

extern "C" int piox_sfp_create(MPI_Comm comm, MPI_Offset initial, piox_sfp_transport transport,
                               piox_sfp **sfp)
{
    if (sfp == nullptr)
        return MPI_ERR_ARG;
    *sfp = nullptr;
    MPI_Comm own = MPI_COMM_NULL;
    int rc = piox_comm_dup_private(comm, &own);
    if (rc != MPI_SUCCESS)
        return rc;

    int one_node = 0;
    rc = piox::adio::comm_on_one_node(comm, own, &one_node);
    if (rc == MPI_SUCCESS && transport == PIOX_SFP_TRANSPORT_SHM && !one_node)
        rc = MPI_ERR_ARG;  // the same on every process: one_node is agreed
    std::unique_ptr<piox::adio::SfpTransport> made;
    if (rc == MPI_SUCCESS) {
        bool use_shm = transport == PIOX_SFP_TRANSPORT_SHM ||
                       (transport == PIOX_SFP_TRANSPORT_AUTO && one_node);
        rc = use_shm ? piox::adio::make_shm_transport(own, initial, &made)
                     : piox::adio::make_rma_transport(own, initial, &made);
    }
    if (rc != MPI_SUCCESS) {
        PMPI_Comm_free(&own);
        return rc;
    }
    piox_debug("shared file pointer: transport %s (%s), initial %lld", made->name(),
               one_node ? "one node" : "several nodes", static_cast<long long>(initial));
    *sfp = new piox_sfp{std::move(made)};
    return MPI_SUCCESS;
}

extern "C" int piox_sfp_free(piox_sfp **sfp)
{
    if (sfp == nullptr || *sfp == nullptr)
        return MPI_ERR_ARG;
    int rc = (*sfp)->transport->release();
    delete *sfp;
    *sfp = nullptr;
    return rc;
}

extern "C" int piox_sfp_fetch_add(piox_sfp *sfp, MPI_Offset delta, MPI_Offset *previous)
{
    if (sfp == nullptr || previous == nullptr || delta < 0)
        return MPI_ERR_ARG;
    return sfp->transport->fetch_add(delta, previous);
}

extern "C" int piox_sfp_read(piox_sfp *sfp, MPI_Offset *current)
{
    if (sfp == nullptr || current == nullptr)
        return MPI_ERR_ARG;
    return sfp->transport->read(current);
}

extern "C" int piox_sfp_store(piox_sfp *sfp, MPI_Offset value)
{
    if (sfp == nullptr || value < 0)
        return MPI_ERR_ARG;
    return sfp->transport->store(value);
}

extern "C" int piox_sfp_ordered(piox_sfp *sfp, MPI_Offset delta, MPI_Offset *offset)
{
    // A negative delta is still carried through the collective (so no one hangs) and
    // reported afterwards.
    if (sfp == nullptr || offset == nullptr)
        return MPI_ERR_ARG;
    int rc = sfp->transport->ordered(delta < 0 ? 0 : delta, offset);
    return rc == MPI_SUCCESS && delta < 0 ? MPI_ERR_ARG : rc;
}

extern "C" int piox_sfp_update(piox_sfp *sfp, piox_sfp_op op, MPI_Offset operand,
                               MPI_Offset *result)
{
    if (sfp == nullptr || (op != PIOX_SFP_SET && op != PIOX_SFP_ADD))
        return MPI_ERR_ARG;
    return sfp->transport->update(op, operand, result);
}

extern "C" const char *piox_sfp_transport_name(const piox_sfp *sfp)
{
    return sfp == nullptr ? "none" : sfp->transport->name();
}
