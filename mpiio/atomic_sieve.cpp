// piox's own data sieving in atomic mode: see atomic_sieve.h.
#include "atomic_sieve.h"

#include "errors.h"
#include "next.h"
#include "packed_transfer.h"
#include "piox_fsprobe.h"

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <unistd.h>

namespace piox::mpiio {
namespace {

constexpr MPI_Offset kMaxSpan = MPI_Offset(4) << 20;  // bytes read or written at once
constexpr size_t kMinPieces = 8;  // fewer pieces: one system call each is as cheap
// The cost model that picks sieving: a system call costs about kCallNs, moving the
// span through memory about one nanosecond per byte read (and again to write it back).
// Sieving pays one or two calls plus the span; piece by piece pays a call per piece.
// (Measured here: a pwrite of a small piece is 1-3 us, more when several processes
// write one file; memcpy and the page cache move a few GB/s.)
constexpr double kCallNs = 2000;
constexpr double kNsPerSpanByte = 0.5;

bool sieving_is_cheaper(Direction direction, size_t pieces, MPI_Offset span)
{
    const double passes = direction == Direction::write ? 2 : 1;
    const double sieved = passes * (kCallNs + kNsPerSpanByte * static_cast<double>(span));
    return static_cast<double>(pieces) * kCallNs > sieved;
}

bool transfer_all(int fd, char *data, MPI_Offset length, MPI_Offset offset, bool write,
                  MPI_Offset *done)
{
    *done = 0;
    while (*done < length) {
        ssize_t n = write ? pwrite(fd, data + *done, static_cast<size_t>(length - *done),
                                   offset + *done)
                          : pread(fd, data + *done, static_cast<size_t>(length - *done),
                                  offset + *done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return false;
        if (n == 0)
            break;  // end of file (reads only)
        *done += n;
    }
    return true;
}

// The map of this access when sieving it is worth it in this direction: its pieces
// are exact (they are in stream order: filetypes are monotonic), many, and within a
// modest span. *span receives the first piece's start to the last's end.
const AccessMap *sieve_plan(AtomicFile &file, Direction direction, MPI_Offset offset,
                            MPI_Offset bytes, piox_extent *span)
{
    const AccessMap *map = nullptr;
    if (map_access(file, offset, bytes, &map) != MPI_SUCCESS || !map->exact ||
        map->pieces.size() < kMinPieces)
        return nullptr;
    const piox_extent &first = map->pieces.front(), &last = map->pieces.back();
    *span = {first.offset, last.offset + last.length - first.offset};
    const bool worth = span->length <= kMaxSpan &&
                       sieving_is_cheaper(direction, map->pieces.size(), span->length);
    return worth ? map : nullptr;
}

// How long each piece is: its own length, or one known at compile time. Pieces of one
// small fixed size (a strided view of ints or doubles) are copied with a constant
// length, which the compiler turns into a load and a store: a call to memcpy per
// 4-byte piece costs several times the copy itself.
struct OwnLength {
    size_t operator()(const piox_extent &piece) const { return static_cast<size_t>(piece.length); }
};
template <size_t Length>
struct FixedLength {
    size_t operator()(const piox_extent &) const { return Length; }
};

// Copies every piece between the stream (the access's bytes in order) and the span.
template <typename PieceLength>
void move_each(const AccessMap &map, char *span, MPI_Offset span_offset, char *stream,
               bool into_span, PieceLength length_of)
{
    for (const piox_extent &piece : map.pieces) {
        char *in_span = span + (piece.offset - span_offset);
        const size_t length = length_of(piece);
        std::memcpy(into_span ? in_span : stream, into_span ? stream : in_span, length);
        stream += length;
    }
}

void move_pieces(const AccessMap &map, char *span, MPI_Offset span_offset, char *stream,
                 bool into_span)
{
    switch (map.piece_length) {
    case 4:
        return move_each(map, span, span_offset, stream, into_span, FixedLength<4>());
    case 8:
        return move_each(map, span, span_offset, stream, into_span, FixedLength<8>());
    case 16:
        return move_each(map, span, span_offset, stream, into_span, FixedLength<16>());
    default:
        return move_each(map, span, span_offset, stream, into_span, OwnLength());
    }
}

// An I/O monitor preloaded after libpiox defines MPI_File_write_at; the library's
// own is an alias of its PMPI_File_write_at (MPICH and Open MPI alike).
bool a_monitor_follows()
{
    static const bool follows =
        reinterpret_cast<void *>(PIOX_NEXT_ROUTINE(File_write_at)) !=
        reinterpret_cast<void *>(&PMPI_File_write_at);
    return follows;
}

int io_error(AtomicFile &file, const char *what)
{
    return raise_error(file.fh, MPI_ERR_IO, std::string("atomic-mode ") + what + " of '" +
                                                file.filename + "': " + std::strerror(errno));
}

}  // namespace

void open_sieve_descriptor(AtomicFile &file, int amode)
{
    const char *path = piox_path_of(file.filename.c_str());
    // Sieving a write reads the span first, so it needs read access too.
    file.sieve_fd = open(path, (amode & MPI_MODE_RDONLY) ? O_RDONLY : O_RDWR);
    file.sieve_writes = file.sieve_fd >= 0 && !(amode & MPI_MODE_RDONLY);
}

void close_sieve_descriptor(AtomicFile &file)
{
    if (file.sieve_fd >= 0)
        close(file.sieve_fd);
    file.sieve_fd = -1;
}

int sync_sieve_descriptor(AtomicFile &file)
{
    if (!file.sieve_writes || fdatasync(file.sieve_fd) == 0)
        return MPI_SUCCESS;
    return io_error(file, "sync");
}

bool sieved_transfer(AtomicFile &file, Direction direction, MPI_Offset offset, void *buf,
                     MPI_Count count, MPI_Datatype datatype, MPI_Status *status, int *rc)
{
    const bool write = direction == Direction::write;
    MPI_Count size = 0;
    if (file.sieve_fd < 0 || (write && !file.sieve_writes) || count <= 0 || offset < 0 ||
        a_monitor_follows() ||
        datatype == MPI_DATATYPE_NULL || PMPI_Type_size_x(datatype, &size) != MPI_SUCCESS ||
        size <= 0 || count > kMaxSpan / size || current_view(file) != MPI_SUCCESS ||
        !file.native)
        return false;
    const MPI_Offset bytes = static_cast<MPI_Offset>(size) * count;
    piox_extent span{};
    const AccessMap *plan = sieve_plan(file, direction, offset, bytes, &span);
    if (plan == nullptr)
        return false;

    // The access's bytes in stream order: the user's buffer itself, or a packed copy.
    char *stream = contiguous_data(buf, datatype, size);
    const bool packed = stream == nullptr;
    if (packed) {
        file.sieve_stream.resize(static_cast<size_t>(bytes));
        stream = file.sieve_stream.data();
    }
    int position = 0;
    if (write && packed &&
        (PMPI_Pack(buf, static_cast<int>(count), datatype, stream, static_cast<int>(bytes),
                   &position, MPI_COMM_SELF) != MPI_SUCCESS ||
         position != bytes))
        return false;
    // A write locks the whole span it rewrites; a read only the bytes it keeps.
    *rc = write ? piox_lock_acquire(file.lock, PIOX_LOCK_WRITE, &span, 1)
                : piox_lock_acquire(file.lock, PIOX_LOCK_READ, plan->locks.data(),
                                    static_cast<int>(plan->locks.size()));
    if (*rc != MPI_SUCCESS) {
        *rc = raise_code(file.fh, *rc);
        return true;
    }
    file.sieve_span.resize(static_cast<size_t>(span.length));
    MPI_Offset done = 0;
    bool ok = transfer_all(file.sieve_fd, file.sieve_span.data(), span.length, span.offset, false,
                           &done);
    if (ok && !write && done < span.length) {
        piox_lock_release(file.lock);
        return false;  // reaches past the end: the library counts what a short read got
    }
    if (ok && write) {
        std::memset(file.sieve_span.data() + done, 0, static_cast<size_t>(span.length - done));
        move_pieces(*plan, file.sieve_span.data(), span.offset, stream, true);
        ok = transfer_all(file.sieve_fd, file.sieve_span.data(), span.length, span.offset, true,
                          &done);
    }
    piox_lock_release(file.lock);
    if (!ok) {
        *rc = io_error(file, write ? "write" : "read");
        return true;
    }
    if (!write) {
        move_pieces(*plan, file.sieve_span.data(), span.offset, stream, false);
        position = 0;
        if (packed)
            PMPI_Unpack(stream, static_cast<int>(bytes), &position, buf,
                        static_cast<int>(count), datatype, MPI_COMM_SELF);
    }
    if (status != MPI_STATUS_IGNORE)
        PMPI_Status_set_elements_x(status, MPI_BYTE, bytes);
    *rc = MPI_SUCCESS;
    return true;
}

}  // namespace piox::mpiio
