// What kind of data access an MPI-IO routine makes, as a type: its direction,
// whether it is collective, and how it completes. The shim derives it from each
// routine's name (pmpi_shim/routine.h); one template per way of positioning
// (data_access.h) then serves every routine of that way.
#ifndef PIOX_MPIIO_ACCESS_KIND_H
#define PIOX_MPIIO_ACCESS_KIND_H

#include <mpi.h>

#include <type_traits>

namespace piox::mpiio {

enum class Direction { read, write };

enum class Completion {
    blocking,     // MPI_Status *status
    nonblocking,  // MPI_Request *request
    split_begin,  // the status waits for the matching _end call
};

// How piox hands an access it passes on to the library: at an explicit offset, or
// at the library's individual pointer, with the library's routine of the individual
// pointer (transfer.h: call_library), as the program's own call would have. ROMIO
// 4.0.2 places some views differently in the two ways (a filetype whose lower bound
// lies past the start of its data; it hangs in its explicit-offset collective
// routines on some), so piox keeps the program's way and lands where stock does.
enum class Positioning { explicit_offset, individual_pointer };

template <Direction D, bool Collective, Completion C>
struct Access {
    static constexpr Direction direction = D;
    static constexpr bool collective = Collective;
    static constexpr Completion completion = C;
    static constexpr bool writes = D == Direction::write;
};

// The buffer argument of an access in direction D.
template <Direction D>
using BufferOf = std::conditional_t<D == Direction::write, const void *, void *>;

}  // namespace piox::mpiio

#endif
