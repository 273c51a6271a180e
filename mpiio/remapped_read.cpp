// See remapped_read.h.
#include "remapped_read.h"

#include "access_check.h"
#include "chunk_remap.h"
#include "instantiate.h"
#include "next.h"
#include "packed_transfer.h"

#include <algorithm>

namespace piox::mpiio {
namespace {

constexpr MPI_Offset kMostPerCall = MPI_Offset(1) << 30;  // each library call's count is an int

// `length` bytes at logical `offset` into data; *status counts the bytes read, fewer
// than asked at the end of the file.
int read_pieces(MPI_File fh, ChunkRemap &remap, MPI_Offset offset, char *data,
                MPI_Count length, MPI_Status *status)
{
    MPI_Count got = 0;
    MPI_Status last{};
    int rc = MPI_SUCCESS;
    remap.for_each_piece(offset, length, [&](MPI_Offset physical, MPI_Offset piece, bool local) {
        for (MPI_Offset done = 0; done < piece;) {
            const int asked = static_cast<int>(std::min(piece - done, kMostPerCall));
            rc = PIOX_NEXT_IN_FORM(File_read_at, int)(fh, physical + done, data + got, asked,
                                                      MPI_BYTE, &last);
            if (rc != MPI_SUCCESS)
                return false;  // the library raised it
            MPI_Count read = 0;
            PMPI_Get_elements_x(&last, MPI_BYTE, &read);
            (local ? remap.local_bytes : remap.remote_bytes) += static_cast<uint64_t>(read);
            got += read;
            done += read;
            if (read < asked)
                return false;  // the file is shorter than its chunk table said
        }
        return true;
    });
    if (rc == MPI_SUCCESS && status != MPI_STATUS_IGNORE) {
        *status = last;
        PMPI_Status_set_elements_x(status, MPI_BYTE, got);
    }
    return rc;
}

}  // namespace

template <typename Count>
int remapped_read(OpenFile &file, MPI_Offset offset, void *buf, Count count,
                  MPI_Datatype datatype, MPI_Status *status)
{
    MPI_Offset bytes = 0;
    MPI_Count size = 0;
    if (offset < 0 || access_bytes(count, datatype, &bytes) != MPI_SUCCESS || bytes == 0 ||
        PMPI_Type_size_x(datatype, &size) != MPI_SUCCESS)
        return PIOX_NEXT_IN_FORM(File_read_at, Count)(file.fh, offset, buf, count, datatype,
                                                       status);
    ChunkRemap &remap = *file.remap;
    if (char *data = contiguous_data(buf, datatype, size))
        return read_pieces(file.fh, remap, offset, data, bytes, status);
    const ByteMover through_remap = [&](MPI_Count done, char *data, MPI_Count length,
                                        MPI_Status *moved) {
        return read_pieces(file.fh, remap, offset + done, data, length, moved);
    };
    const int rc = staged_transfer(Direction::read, buf, count, datatype, 1, through_remap, status);
    return rc != kPackFailed ? rc
                             : PIOX_NEXT_IN_FORM(File_read_at, Count)(file.fh, offset, buf, count,
                                                                       datatype, status);
}

PIOX_INSTANTIATE_FOR_COUNTS(remapped_read)

}  // namespace piox::mpiio
