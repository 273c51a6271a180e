// The two ways a shared file pointer can be kept: in node-shared memory with CPU
// atomics (sfp_shm.cpp) or on a host rank behind MPI-3 atomics (sfp_rma.cpp).
// sfp.cpp picks one at creation and exposes it through the C ABI of piox_sfp.h.
#ifndef PIOX_ADIO_SFP_TRANSPORT_H
#define PIOX_ADIO_SFP_TRANSPORT_H

#include "piox_sfp.h"

#include <memory>

namespace piox::adio {

class SfpTransport {
public:
    virtual ~SfpTransport() = default;
    virtual int fetch_add(MPI_Offset delta, MPI_Offset *previous) = 0;
    virtual int read(MPI_Offset *current) = 0;
    virtual int store(MPI_Offset value) = 0;
    virtual int ordered(MPI_Offset delta, MPI_Offset *offset) = 0;
    virtual int update(piox_sfp_op op, MPI_Offset operand, MPI_Offset *result) = 0;
    // Collective release of windows; called once, before destruction.
    virtual int release() = 0;
    virtual const char *name() const = 0;
};

// Both take ownership of comm (a private duplicate) only on success.
int make_shm_transport(MPI_Comm comm, MPI_Offset initial, std::unique_ptr<SfpTransport> *out);
int make_rma_transport(MPI_Comm comm, MPI_Offset initial, std::unique_ptr<SfpTransport> *out);

// The rule both transports apply in piox_sfp_update: new value, or -1 when the
// update is refused (operands differ, or the result would be negative).
inline MPI_Offset apply_update(piox_sfp_op op, MPI_Offset current, MPI_Offset operand,
                               bool operands_agree)
{
    if (!operands_agree)
        return -1;
    MPI_Offset next = (op == PIOX_SFP_SET) ? operand : current + operand;
    return next < 0 ? -1 : next;
}

}  // namespace piox::adio

#endif
