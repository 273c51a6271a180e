// See packed_transfer.h.
#include "packed_transfer.h"

#include "instantiate.h"
#include "next.h"
#include "piox_comm.h"

#include <algorithm>
#include <climits>
#include <vector>

namespace piox::mpiio {
namespace {

// Bytes packed and moved at once: bounds the staging copy of a large access, and
// keeps each library call's count an int.
constexpr MPI_Count kChunkBytes = MPI_Count(32) << 20;

template <typename Count>
int direct(MPI_File fh, Direction direction, MPI_Offset offset, void *buf, Count count,
           MPI_Datatype datatype, MPI_Status *status)
{
    if (direction == Direction::write)
        return PIOX_NEXT_IN_FORM(File_write_at, Count)(fh, offset, buf, count, datatype, status);
    return PIOX_NEXT_IN_FORM(File_read_at, Count)(fh, offset, buf, count, datatype, status);
}

}  // namespace

char *contiguous_data(void *buf, MPI_Datatype datatype, MPI_Count size)
{
    int integers = 0, addresses = 0, datatypes = 0, combiner = 0;
    MPI_Count lb = 0, extent = 0;
    if (PMPI_Type_get_envelope(datatype, &integers, &addresses, &datatypes, &combiner) !=
            MPI_SUCCESS ||
        combiner != MPI_COMBINER_NAMED ||
        PMPI_Type_get_extent_x(datatype, &lb, &extent) != MPI_SUCCESS)
        return nullptr;
    const bool contiguous = lb == 0 && extent == size;  // MPI_SHORT_INT has a hole
    return contiguous ? static_cast<char *>(buf) : nullptr;
}

namespace {

int free_pack_comm(MPI_Comm, int, void *attribute, void *)
{
    MPI_Comm comm = *static_cast<MPI_Comm *>(attribute);
    return PMPI_Comm_free(&comm);
}

MPI_Comm create_pack_comm()
{
    static MPI_Comm comm = MPI_COMM_NULL;
    int keyval = MPI_KEYVAL_INVALID;
    if (piox_comm_dup_private(MPI_COMM_SELF, &comm) != MPI_SUCCESS)
        return MPI_COMM_SELF;
    // MPI_Finalize deletes MPI_COMM_SELF's attributes first: the duplicate goes then.
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_pack_comm, &keyval, nullptr) ==
        MPI_SUCCESS)
        PMPI_Comm_set_attr(MPI_COMM_SELF, keyval, &comm), PMPI_Comm_free_keyval(&keyval);
    return comm;
}

}  // namespace

MPI_Comm pack_comm()
{
    static const MPI_Comm comm = create_pack_comm();
    return comm;
}

bool lower_bound_off_data(MPI_Datatype datatype)
{
    int integers = 0, addresses = 0, datatypes = 0, combiner = 0;
    MPI_Count lb = 0, extent = 0, true_lb = 0, true_extent = 0;
    if (datatype == MPI_DATATYPE_NULL ||
        PMPI_Type_get_envelope(datatype, &integers, &addresses, &datatypes, &combiner) !=
            MPI_SUCCESS ||
        combiner == MPI_COMBINER_NAMED ||
        PMPI_Type_get_extent_x(datatype, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent_x(datatype, &true_lb, &true_extent) != MPI_SUCCESS)
        return false;
    return lb < 0 || lb != true_lb;
}

int staged_transfer(Direction direction, void *buf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Count etype_size, const ByteMover &move, MPI_Status *status)
{
    MPI_Count size = 0, lb = 0, extent = 0;
    if (PMPI_Type_size_x(datatype, &size) != MPI_SUCCESS || size <= 0 ||
        PMPI_Type_get_extent_x(datatype, &lb, &extent) != MPI_SUCCESS)
        return kPackFailed;
    const MPI_Count items_per_chunk = std::max<MPI_Count>(1, kChunkBytes / size);
    std::vector<char> stage(static_cast<size_t>(std::min<MPI_Count>(count, items_per_chunk) * size));
    MPI_Status chunk_status{};
    MPI_Count moved = 0;  // bytes
    for (MPI_Count done = 0; done < count;) {
        const int items = static_cast<int>(std::min<MPI_Count>(items_per_chunk, count - done));
        const int bytes = static_cast<int>(items * size);
        char *first = static_cast<char *>(buf) + done * extent;
        // A read packs too: bytes past the end of the file then keep the buffer's
        // own contents when the chunk is unpacked.
        int position = 0;
        if (PMPI_Pack(first, items, datatype, stage.data(), bytes, &position, pack_comm()) !=
            MPI_SUCCESS)
            return kPackFailed;  // only ever on the first chunk: the type is at fault
        const int rc = move(moved, stage.data(), bytes, &chunk_status);
        if (rc != MPI_SUCCESS)
            return rc;
        MPI_Count got = 0;
        PMPI_Get_elements_x(&chunk_status, MPI_BYTE, &got);
        if (direction == Direction::read) {
            position = 0;
            PMPI_Unpack(stage.data(), bytes, &position, first, items, datatype, pack_comm());
        }
        moved += got;
        done += items;
        if (got < bytes)
            break;  // the end of the file
    }
    if (status != MPI_STATUS_IGNORE) {
        *status = chunk_status;
        // A read that ends inside an etype did not read it.
        PMPI_Status_set_elements_x(status, MPI_BYTE, moved - moved % etype_size);
    }
    return MPI_SUCCESS;
}

template <typename Count>
int library_transfer(MPI_File fh, Direction direction, MPI_Offset offset, void *buf,
                     Count count, MPI_Datatype datatype, MPI_Count etype_size,
                     bool native_view, MPI_Status *status)
{
    MPI_Count size = 0;
    // Anything the library should judge (a bad type, a negative count, a type that
    // is not whole etypes) or that needs no unfolding goes to it unchanged.
    if (!native_view || count <= 0 || datatype == MPI_DATATYPE_NULL || etype_size <= 0 ||
        PMPI_Type_size_x(datatype, &size) != MPI_SUCCESS || size <= 0 ||
        size % etype_size != 0 || size > kChunkBytes ||
        contiguous_data(buf, datatype, size) != nullptr)
        return direct(fh, direction, offset, buf, count, datatype, status);
    const ByteMover at_offset = [&](MPI_Count done, char *data, MPI_Count bytes,
                                    MPI_Status *moved) {
        return direct(fh, direction, offset + done / etype_size, data, static_cast<int>(bytes),
                      MPI_BYTE, moved);
    };
    const int rc =
        staged_transfer(direction, buf, count, datatype, etype_size, at_offset, status);
    // An uncommitted type, say: the library judges it.
    return rc == kPackFailed ? direct(fh, direction, offset, buf, count, datatype, status) : rc;
}

PIOX_INSTANTIATE_FOR_COUNTS(library_transfer)

}  // namespace piox::mpiio
