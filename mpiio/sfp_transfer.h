// How a shared-pointer access moves its data once it has its offset: with the
// library's explicit-offset routine, or, while the file is in atomic mode (and for
// writes on lockless file systems), with the locked one of atomic_access.h.
#ifndef PIOX_MPIIO_SFP_TRANSFER_H
#define PIOX_MPIIO_SFP_TRANSFER_H

#include "atomic_access.h"
#include "sfp_file.h"

#include <type_traits>

namespace piox::mpiio {

inline bool in_atomic_mode(const SfpFile &file)
{
    return file.atomic != nullptr && file.atomic->atomic;
}

// Writes (Buffer = const void *) on a lockless file system are piox's too.
template <auto Library, auto Locked, typename Buffer, typename Completion>
int transfer_at(SfpFile &file, MPI_Offset offset, Buffer buf, int count, MPI_Datatype datatype,
                Completion completion)
{
    constexpr bool write = std::is_same_v<Buffer, const void *>;
    if (file.atomic != nullptr && takes_over(*file.atomic, write))
        return Locked(*file.atomic, offset, buf, count, datatype, completion);
    return Library(file.fh, offset, buf, count, datatype, completion);
}

}  // namespace piox::mpiio

#endif
