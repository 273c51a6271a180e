// piox moving the data it takes over itself: see own_transfer.h.
#include "own_transfer.h"

#include "access_check.h"
#include "errors.h"
#include "next.h"
#include "packed_transfer.h"
#include "piox_fsprobe.h"

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace piox::mpiio {
namespace {

constexpr MPI_Offset kMaxSpan = MPI_Offset(4) << 20;  // bytes read or written at once
constexpr size_t kMinPieces = 8;  // fewer pieces: one system call each is as cheap
// The cost model that picks sieving: a system call costs about kCallNs, moving the
// span through the page cache about kNsPerSpanByte per byte read (and again to write
// it back). Sieving pays one or two calls plus the span; piece by piece pays a call
// per piece. Measured here (2 CPUs, /tmp on ext4, both busy): a pwrite of a small
// piece costs 2.0-2.4 us; a pread plus a pwrite of a 64-320 KiB span 0.04-0.11 ns
// per byte and pass (8 ranks' demo_blocks span: 64 pieces 141 us, sieved 11 us).
// A sieved write locks its span whole, so writers of one span take turns; at these
// costs the turns of 8 writers still take less than one writer's pieces, and on one
// node the lock writes the writers queued for a span in one turn (piox_lock.h).
constexpr double kCallNs = 2000;
constexpr double kNsPerSpanByte = 0.125;

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

// Whether sieving this access (its map, exact and in stream order: filetypes are
// monotonic) is worth it in this direction: many pieces within a modest span.
// *span receives the first piece's start to the last's end.
bool worth_sieving(const AccessMap &map, Direction direction, piox_extent *span)
{
    if (map.pieces.size() < kMinPieces)
        return false;
    const piox_extent &first = map.pieces.front(), &last = map.pieces.back();
    *span = {first.offset, last.offset + last.length - first.offset};
    return span->length <= kMaxSpan &&
           sieving_is_cheaper(direction, map.pieces.size(), span->length);
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
    return raise_error(file.fh, MPI_ERR_IO, std::string("piox's ") + what + " of '" +
                                                file.filename + "': " + std::strerror(errno));
}

// The stream bytes a sieved read got when the file ended `got` bytes into the span:
// the pieces, in stream order, up to the end of the file. Copies them (the rest of
// the stream keeps its contents).
MPI_Offset keep_read_pieces(const AccessMap &map, const char *span, const piox_extent &extent,
                            MPI_Offset got, char *stream)
{
    if (got == extent.length) {
        move_pieces(map, const_cast<char *>(span), extent.offset, stream, false);
        return map.bytes;
    }
    MPI_Offset moved = 0;
    const MPI_Offset end = extent.offset + got;
    for (const piox_extent &piece : map.pieces) {
        const MPI_Offset length =
            std::min(piece.length, std::max<MPI_Offset>(0, end - piece.offset));
        std::memcpy(stream + moved, span + (piece.offset - extent.offset),
                    static_cast<size_t>(length));
        moved += length;
        if (length < piece.length)
            break;
    }
    return moved;
}

// Reads `span` into file.own_span. Returns the bytes the file held there (fewer at
// its end), or -1 (errno set).
MPI_Offset read_span(AtomicFile &file, const piox_extent &span)
{
    file.own_span.resize(static_cast<size_t>(span.length));
    MPI_Offset got = 0;
    return transfer_all(file.own_fd, file.own_span.data(), span.length, span.offset, false, &got)
               ? got
               : -1;
}

// The sieved access: one pread of the span and, for a write, one pwrite. Returns the
// stream bytes moved, or -1 (errno set).
MPI_Offset sieve(AtomicFile &file, const AccessMap &map, const piox_extent &span, char *stream,
                 bool write)
{
    const MPI_Offset got = read_span(file, span);
    if (got < 0)
        return -1;
    char *data = file.own_span.data();
    if (!write)
        return keep_read_pieces(map, data, span, got, stream);
    std::memset(data + got, 0, static_cast<size_t>(span.length - got));
    move_pieces(map, data, span.offset, stream, true);
    MPI_Offset done = 0;
    return transfer_all(file.own_fd, data, span.length, span.offset, true, &done) ? map.bytes : -1;
}

// One system call per piece. Returns the stream bytes moved (a read stops at the end
// of the file), or -1 (errno set).
MPI_Offset piece_by_piece(AtomicFile &file, const AccessMap &map, char *stream, bool write)
{
    MPI_Offset moved = 0;
    for (const piox_extent &piece : map.pieces) {
        MPI_Offset done = 0;
        if (!transfer_all(file.own_fd, stream + moved, piece.length, piece.offset, write, &done))
            return -1;
        moved += done;
        if (done < piece.length)
            break;
    }
    return moved;
}

}  // namespace

void open_own_descriptor(AtomicFile &file, int amode)
{
    const char *path = piox_path_of(file.filename.c_str());
    // A sieved write reads the span first, so it needs read access too.
    file.own_fd = open(path, (amode & MPI_MODE_RDONLY) ? O_RDONLY : O_RDWR);
    file.own_fd_writes = file.own_fd >= 0 && !(amode & MPI_MODE_RDONLY);
}

void close_own_descriptor(AtomicFile &file)
{
    if (file.own_fd >= 0)
        close(file.own_fd);
    file.own_fd = -1;
}

int sync_own_descriptor(AtomicFile &file)
{
    if (!file.own_fd_writes || fdatasync(file.own_fd) == 0)
        return MPI_SUCCESS;
    return io_error(file, "sync");
}

namespace {

// The access's bytes in stream order, a chunk at a time: the user's buffer itself
// when its bytes are one block, else a packed copy of whole items (for a read too:
// what the file does not hold then keeps the buffer's contents when it is unpacked).
class Stream {
public:
    Stream(AtomicFile &file, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Count size)
        : file_(file), buf_(static_cast<char *>(buf)), count_(count), datatype_(datatype),
          size_(size), contiguous_(contiguous_data(buf, datatype, size))
    {
        MPI_Count lb = 0;
        PMPI_Type_get_extent_x(datatype, &lb, &extent_);
    }

    // How many stream bytes a chunk starting at stream byte `at` may hold, at most
    // `limit`: whole etypes of a contiguous buffer, whole items of a packed one (0 when
    // one item is larger than the limit).
    MPI_Offset chunk(MPI_Offset at, MPI_Offset limit, MPI_Count etype_size) const
    {
        const MPI_Offset left = count_ * size_ - at;
        if (contiguous_ != nullptr)
            return std::min(left, limit - limit % etype_size);
        return std::min(left, limit - limit % size_);
    }

    // The chunk's bytes [at, at + length), ready for a write or to be read into.
    char *begin(MPI_Offset at, MPI_Offset length)
    {
        if (contiguous_ != nullptr)
            return contiguous_ + at;
        file_.own_stream.resize(static_cast<size_t>(length));
        int position = 0;
        if (PMPI_Pack(item(at), items(length), datatype_, file_.own_stream.data(),
                      static_cast<int>(length), &position, pack_comm()) != MPI_SUCCESS ||
            position != length)
            return nullptr;
        return file_.own_stream.data();
    }

    // After a read of the chunk: its bytes back into the buffer.
    void end_read(MPI_Offset at, MPI_Offset length)
    {
        if (contiguous_ != nullptr)
            return;
        int position = 0;
        PMPI_Unpack(file_.own_stream.data(), static_cast<int>(length), &position, item(at),
                    items(length), datatype_, pack_comm());
    }

private:
    char *item(MPI_Offset at) const { return buf_ + (at / size_) * extent_; }
    int items(MPI_Offset length) const { return static_cast<int>(length / size_); }

    AtomicFile &file_;
    char *buf_;
    MPI_Count count_;
    MPI_Datatype datatype_;
    MPI_Count size_, extent_ = 0;
    char *contiguous_;
};

// Moves one chunk whose map is exact, its locks held by the caller (a sieved write
// rewrites the gaps of its span: the caller holds the whole span then). Returns the
// stream bytes moved, or -1 (errno set).
MPI_Offset move_chunk(AtomicFile &file, const AccessMap &map, char *stream, bool write)
{
    piox_extent span{};
    const Direction direction = write ? Direction::write : Direction::read;
    if (worth_sieving(map, direction, &span))
        return sieve(file, map, span, stream, write);
    return piece_by_piece(file, map, stream, write);
}

// The file's size, or -1 when piox cannot measure it (fstat fails: an unlinked file on
// some FUSE file systems).
MPI_Offset own_file_size(AtomicFile &file)
{
    struct stat st {};
    return fstat(file.own_fd, &st) == 0 ? st.st_size : -1;
}

// What of an exact map a read may move: the whole etypes the file holds, so that no
// byte of the buffer past them changes (MPI-3.1 13.4.3: a read that reaches the end
// of the file reads whole etypes). Measured with the read locks held, under which no
// piox writer extends the file into the access's bytes. Returns `map`, or the map of
// its first such bytes, or nullptr when there are none. `file_size` is the file's size
// (own_file_size), or -1 for a file piox cannot measure, which is read as it is.
const AccessMap *readable_part(AtomicFile &file, const AccessMap *map, MPI_Offset offset,
                               MPI_Count etype_size, MPI_Offset file_size)
{
    if (file_size < 0)
        return map;
    MPI_Offset readable = stream_bytes_before(*map, file_size);
    if (readable == map->bytes)
        return map;
    readable -= readable % etype_size;
    if (readable == 0 || map_access(file, offset, readable, &map) != MPI_SUCCESS)
        return nullptr;
    return map;
}

// A sieved write of up to kMaxSpan bytes, locked, written and released in one call
// that writes it together with the node's other sieved writes of the same span
// queued behind it, or has one of them write it (piox_lock.h: write combining).
// Returns as move_small.
MPI_Offset sieved_write(AtomicFile &file, const AccessMap &map, char *stream, int *rc)
{
    *rc = piox_lock_sieved_write(file.lock, file.own_fd, map.pieces.data(),
                                 static_cast<int>(map.pieces.size()), stream);
    if (*rc == MPI_SUCCESS)
        return map.bytes;
    if (*rc == MPI_ERR_IO) {  // errno set
        *rc = MPI_SUCCESS;
        return -1;
    }
    return *rc == MPI_ERR_ARG ? -2 : 0;  // pieces the lock does not take: the library's
}

// A read that copies out of piox's own buffer: the readable part of `map` and the span
// read into file.own_span, for a sieved read or one of a single piece.
struct SpanRead {
    const AccessMap *map = nullptr;  // nullptr: the file holds none of the access
    piox_extent span{};
    MPI_Offset got = 0;              // bytes read into the span, or -1
    int error = 0;                   // errno when got is -1
};

// Reads the readable part of `map` into the span when it sieves, or is one piece and
// `one_piece` (true); else reads nothing (false: the caller reads piece by piece into
// the stream, locked; read->map is then the readable part).
bool read_into_span(AtomicFile &file, const AccessMap *map, MPI_Offset offset,
                    MPI_Count etype_size, bool one_piece, SpanRead *read)
{
    read->map = readable_part(file, map, offset, etype_size, own_file_size(file));
    if (read->map == nullptr)
        return true;
    if (one_piece && read->map->pieces.size() == 1)
        read->span = read->map->pieces.front();
    else if (!worth_sieving(*read->map, Direction::read, &read->span))
        return false;
    read->got = read_span(file, read->span);
    read->error = errno;
    return true;
}

// The stream bytes of a SpanRead, copied out of the span, or -1 (errno set).
MPI_Offset keep_span_read(AtomicFile &file, const SpanRead &read, char *stream)
{
    if (read.map == nullptr)
        return 0;
    if (read.got < 0) {
        errno = read.error;
        return -1;
    }
    return keep_read_pieces(*read.map, file.own_span.data(), read.span, read.got, stream);
}

// Runs `read` between piox_lock_optimistic_begin and _end over `locks` (piox_lock.h:
// optimistic reads). True when it ran and no overlapping write ran meanwhile, so that
// what it read stands; false when it must be read again under the read lock. `locks`
// is only looked at before `read` runs, which may map other accesses.
template <typename Read>
bool read_without_lock(AtomicFile &file, const std::vector<piox_extent> &locks, Read read)
{
    int begun = 0, valid = 0;
    if (piox_lock_optimistic_begin(file.lock, locks.data(), static_cast<int>(locks.size()),
                                   &begun) != MPI_SUCCESS ||
        !begun)
        return false;
    read();
    return piox_lock_optimistic_end(file.lock, &valid) == MPI_SUCCESS && valid;
}

// A read of up to kMaxSpan bytes, first without a lock (piox_lock.h: optimistic
// reads): kept when no overlapping write ran meanwhile, so a reader preempted in its
// read makes no writer wait. It reads into piox's own span, even one piece, so that
// a read it discards never touched the caller's buffer. Returns the stream bytes
// read into `stream`, or -1 (errno set); -3 when it must be read under the read
// lock (a write was under way, one overlapped it, or its pieces are too far apart
// to sieve: those it does not try).
MPI_Offset read_optimistically(AtomicFile &file, const AccessMap *map, MPI_Offset offset,
                               MPI_Count etype_size, char *stream)
{
    piox_extent span{};
    if (map->pieces.size() > 1 && !worth_sieving(*map, Direction::read, &span))
        return -3;  // pieces too far apart: read one by one, locked (its readable
                    // part differs only at the end of the file)
    SpanRead read;
    bool spanned = false;
    if (!read_without_lock(file, map->locks,
                           [&] { spanned = read_into_span(file, map, offset, etype_size, true, &read); }) ||
        !spanned)
        return -3;
    return keep_span_read(file, read, stream);
}

// An access of up to kMaxSpan bytes: one exact map, locked as it is moved (a sieved
// write its whole span, else the exact bytes; a read only when it could not go
// without). Returns the stream bytes moved, -1 (errno set) when the file failed, -2
// when piox cannot map it exactly.
MPI_Offset move_small(AtomicFile &file, Stream &data, MPI_Offset offset, MPI_Offset bytes,
                      MPI_Count etype_size, bool write, int *rc)
{
    const AccessMap *map = nullptr;
    if (map_access(file, offset, bytes, &map) != MPI_SUCCESS || !map->exact)
        return -2;
    char *stream = data.begin(0, bytes);
    if (stream == nullptr)
        return -2;
    piox_extent span{};
    if (write && worth_sieving(*map, Direction::write, &span))
        return sieved_write(file, *map, stream, rc);
    if (!write) {
        const MPI_Offset read = read_optimistically(file, map, offset, etype_size, stream);
        if (read != -3) {
            if (read >= 0)
                data.end_read(0, bytes);
            return read;
        }
        // readable_part may have mapped another access since: map this one again.
        if (map_access(file, offset, bytes, &map) != MPI_SUCCESS || !map->exact)
            return -2;
    }
    *rc = piox_lock_acquire(file.lock, write ? PIOX_LOCK_WRITE : PIOX_LOCK_READ,
                            map->locks.data(), static_cast<int>(map->locks.size()));
    if (*rc != MPI_SUCCESS)
        return 0;
    SpanRead read;
    if (!write && read_into_span(file, map, offset, etype_size, false, &read)) {
        // The lock covers the read of the span only: the pieces are copied out of
        // piox's own buffer after the release, so that writers do not wait for the
        // copy (with 8 processes on 2 cores a reader preempted in it held them up).
        piox_lock_release(file.lock);
        const MPI_Offset moved = keep_span_read(file, read, stream);
        if (moved >= 0)
            data.end_read(0, bytes);
        return moved;
    }
    if (!write)
        map = read.map;
    const MPI_Offset moved = map == nullptr ? 0 : move_chunk(file, *map, stream, write);
    piox_lock_release(file.lock);
    if (moved >= 0 && !write)
        data.end_read(0, bytes);
    return moved;
}

// Walks an access a chunk of at most kMaxSpan bytes at a time, each chunk mapped
// exactly (halved until it is), and hands each chunk's map, stream bytes and offset
// (in etypes) to `move`, which returns the stream bytes it moved or -1. Returns the
// stream bytes moved, -1 (errno set), or -2 when the first chunk cannot be mapped
// or packed (nothing moved: the library may take the access).
template <typename MoveChunk>
MPI_Offset move_in_chunks(AtomicFile &file, Stream &data, MPI_Offset offset, MPI_Offset bytes,
                          MPI_Count etype_size, bool write, MoveChunk move)
{
    MPI_Offset moved = 0, limit = kMaxSpan;
    while (moved < bytes) {
        const MPI_Offset length = data.chunk(moved, limit, etype_size);
        const MPI_Offset at = offset + moved / etype_size;
        const AccessMap *map = nullptr;
        if (length <= 0 || map_access(file, at, length, &map) != MPI_SUCCESS)
            return moved == 0 ? -2 : (errno = EINVAL, -1);
        if (!map->exact) {
            limit /= 2;  // too many pieces for one exact map
            continue;
        }
        char *stream = data.begin(moved, length);
        if (stream == nullptr)  // the type does not pack: the library judges it
            return moved == 0 ? -2 : (errno = EINVAL, -1);
        const MPI_Offset done = move(map, stream, at);
        if (done < 0)
            return -1;
        if (!write)
            data.end_read(moved, length);
        moved += done;
        if (done < length)
            break;  // the end of the file
    }
    return moved;
}

// A read for move_large whose span fits piox's buffer (an access of up to kMaxSpan
// bytes in over 64 Ki pieces), first without a lock as read_optimistically does: the
// span and the file's size read once while the write marks watch `locks`, then, if
// no overlapping write ran, each chunk's pieces copied out of the span. Returns as
// move_large; -3 when it must be read under the read lock.
MPI_Offset read_large_optimistically(AtomicFile &file, Stream &data, MPI_Offset offset,
                                     MPI_Offset bytes, MPI_Count etype_size,
                                     const piox_extent &span,
                                     const std::vector<piox_extent> &locks)
{
    MPI_Offset file_size = -1, got = -1;
    int error = 0;
    if (span.length > kMaxSpan || !read_without_lock(file, locks, [&] {
            file_size = own_file_size(file);
            got = read_span(file, span);
            error = errno;
        }))
        return -3;
    if (got < 0) {
        errno = error;
        return -1;
    }
    return move_in_chunks(file, data, offset, bytes, etype_size, false,
                          [&](const AccessMap *map, char *stream, MPI_Offset at) -> MPI_Offset {
                              map = readable_part(file, map, at, etype_size, file_size);
                              return map == nullptr ? 0
                                                    : keep_read_pieces(*map, file.own_span.data(),
                                                                       span, got, stream);
                          });
}

// A larger access, or a smaller one in too many pieces for one exact map: locked once
// as a whole (a write its whole span, so that chunks may sieve; a read the coarsened
// extents), then moved in chunks that map exactly. A read whose span fits piox's
// buffer is first tried without the lock. Same returns as move_small; -2 only before
// anything moved.
MPI_Offset move_large(AtomicFile &file, Stream &data, MPI_Offset offset, MPI_Offset bytes,
                      MPI_Count etype_size, bool write, int *rc)
{
    const AccessMap *whole = nullptr;
    if (data.chunk(0, kMaxSpan, etype_size) <= 0 ||
        map_access(file, offset, bytes, &whole) != MPI_SUCCESS || whole->pieces.empty())
        return -2;
    const piox_extent &first = whole->pieces.front(), &last = whole->pieces.back();
    const piox_extent span{first.offset, last.offset + last.length - first.offset};
    // Copied: mapping the chunks may evict the whole map from the cache.
    const std::vector<piox_extent> locks = write ? std::vector<piox_extent>{span} : whole->locks;
    if (!write) {
        const MPI_Offset read =
            read_large_optimistically(file, data, offset, bytes, etype_size, span, locks);
        if (read != -3)
            return read;
    }
    *rc = piox_lock_acquire(file.lock, write ? PIOX_LOCK_WRITE : PIOX_LOCK_READ, locks.data(),
                            static_cast<int>(locks.size()));
    if (*rc != MPI_SUCCESS)
        return 0;
    const MPI_Offset file_size = write ? -1 : own_file_size(file);  // measured under the lock
    const MPI_Offset moved = move_in_chunks(
        file, data, offset, bytes, etype_size, write,
        [&](const AccessMap *map, char *stream, MPI_Offset at) -> MPI_Offset {
            if (!write)
                map = readable_part(file, map, at, etype_size, file_size);
            return map == nullptr ? 0 : move_chunk(file, *map, stream, write);
        });
    piox_lock_release(file.lock);
    return moved;
}

}  // namespace

bool own_transfer(AtomicFile &file, Direction direction, MPI_Offset offset, void *buf,
                  MPI_Count count, MPI_Datatype datatype, MPI_Count etype_size,
                  MPI_Status *status, int *rc)
{
    const bool write = direction == Direction::write;
    MPI_Offset bytes = 0;
    if (file.own_fd < 0 || (write && !file.own_fd_writes) || offset < 0 || etype_size <= 0 ||
        a_monitor_follows() || access_bytes(count, datatype, &bytes) != MPI_SUCCESS ||
        bytes <= 0 || current_view(file) != MPI_SUCCESS || !file.native)
        return false;
    Stream data(file, buf, count, datatype, bytes / count);
    *rc = MPI_SUCCESS;
    // An access too fragmented for one exact map (move_small's -2: over 64 Ki pieces)
    // goes as a large one, in chunks that map exactly, not to the library: with write
    // sieving off, ROMIO would write its pieces one system call each.
    MPI_Offset moved = bytes <= kMaxSpan ? move_small(file, data, offset, bytes, etype_size, write, rc)
                                         : -2;
    if (moved == -2)
        moved = move_large(file, data, offset, bytes, etype_size, write, rc);
    if (moved == -2)
        return false;
    if (*rc != MPI_SUCCESS) {
        *rc = raise_code(file.fh, *rc);
        return true;
    }
    if (moved < 0) {
        *rc = io_error(file, write ? "write" : "read");
        return true;
    }
    moved -= moved % etype_size;  // a read that ends inside an etype did not read it
    if (status != MPI_STATUS_IGNORE)
        PMPI_Status_set_elements_x(status, MPI_BYTE, moved);
    return true;
}

}  // namespace piox::mpiio
