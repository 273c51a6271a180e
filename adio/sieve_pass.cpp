// See sieve_pass.h.
#include "sieve_pass.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <unistd.h>

namespace piox::adio {
namespace {

// Calls emit(run) for each run of pieces: equal lengths at a constant stride.
template <typename Emit>
void for_each_run(const piox_extent *pieces, size_t n, Emit emit)
{
    SieveRun run{};
    for (size_t i = 0; i < n; i++) {
        const piox_extent &piece = pieces[i];
        if (run.count > 0 && piece.length == run.length &&
            (run.count == 1 || piece.offset == run.offset + run.count * run.stride)) {
            if (run.count == 1)
                run.stride = piece.offset - run.offset;
            run.count++;
            continue;
        }
        if (run.count > 0)
            emit(run);
        run = SieveRun{piece.offset, piece.length, 0, 1};
    }
    if (run.count > 0)
        emit(run);
}

// Copies a run's pieces from the stream into the span buffer (which starts at file
// offset `base`). Pieces of 4 or 8 bytes are copied with a constant length, which
// the compiler turns into a load and a store (a memcpy call per int costs more).
template <size_t Length>
const char *patch_fixed(const SieveRun &run, char *span, MPI_Offset base, const char *data)
{
    char *to = span + (run.offset - base);
    for (MPI_Offset k = 0; k < run.count; k++, to += run.stride, data += Length)
        std::memcpy(to, data, Length);
    return data;
}

const char *patch(const SieveRun &run, char *span, MPI_Offset base, const char *data)
{
    switch (run.length) {
    case 4:
        return patch_fixed<4>(run, span, base, data);
    case 8:
        return patch_fixed<8>(run, span, base, data);
    default:
        break;
    }
    char *to = span + (run.offset - base);
    const auto length = static_cast<size_t>(run.length);
    for (MPI_Offset k = 0; k < run.count; k++, to += run.stride, data += length)
        std::memcpy(to, data, length);
    return data;
}

void apply(const void *post, char *span, MPI_Offset base)
{
    const SievePostHeader &head = post_header(post);
    const auto *runs = reinterpret_cast<const SieveRun *>(&head + 1);
    const char *data = reinterpret_cast<const char *>(runs + head.runs);
    for (uint64_t r = 0; r < head.runs; r++)
        data = patch(runs[r], span, base, data);
}

// Reads or writes all of [offset, offset + length) unless the file ends (reads).
// *done: the bytes moved. 0 or an errno value.
int transfer(int fd, char *data, MPI_Offset length, MPI_Offset offset, bool write,
             MPI_Offset *done)
{
    *done = 0;
    while (*done < length) {
        const auto left = static_cast<size_t>(length - *done);
        const ssize_t n = write ? pwrite(fd, data + *done, left, offset + *done)
                                : pread(fd, data + *done, left, offset + *done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            return write ? EIO : 0;  // a read at the end of the file
        *done += n;
    }
    return 0;
}

}  // namespace

double sieve_pass_ns(MPI_Offset span, double pieces)
{
    constexpr double kCallNs = 2000, kNsPerSpanByte = 0.125, kNsPerPiece = 1;
    return 2 * (kCallNs + kNsPerSpanByte * static_cast<double>(span)) + kNsPerPiece * pieces;
}

size_t sieve_post_bytes(const piox_extent *pieces, size_t n)
{
    size_t bytes = sizeof(SievePostHeader);
    for_each_run(pieces, n, [&bytes](const SieveRun &run) {
        bytes += sizeof(SieveRun) + static_cast<size_t>(run.length * run.count);
    });
    return bytes;
}

// One pass over the pieces (a post is encoded on every sieved write, of up to
// 10,000 pieces): the runs go straight into the post while they and the bytes they
// carry fit.
bool encode_sieve_post(const piox_extent *pieces, size_t n, const void *stream, void *post,
                       size_t capacity)
{
    if (n == 0 || capacity < sizeof(SievePostHeader))
        return false;
    auto &head = *static_cast<SievePostHeader *>(post);
    auto *runs = reinterpret_cast<SieveRun *>(&head + 1);
    const size_t room = capacity - sizeof(SievePostHeader);
    size_t count = 0, data_bytes = 0;
    bool fits = true;
    for_each_run(pieces, n, [&](const SieveRun &run) {
        data_bytes += static_cast<size_t>(run.length * run.count);
        fits = fits && (count + 1) * sizeof(SieveRun) + data_bytes <= room;
        if (fits)
            runs[count++] = run;
    });
    if (!fits)
        return false;
    head.span = {pieces[0].offset, end_of(pieces[n - 1]) - pieces[0].offset};
    head.runs = count;
    head.data_bytes = data_bytes;
    std::memcpy(runs + count, stream, data_bytes);
    return true;
}

int sieve_pass(int fd, const std::vector<const void *> &posts, std::vector<char> *scratch)
{
    if (posts.empty())
        return 0;
    MPI_Offset begin = post_header(posts[0]).span.offset, end = end_of(post_header(posts[0]).span);
    for (const void *post : posts) {
        begin = std::min(begin, post_header(post).span.offset);
        end = std::max(end, end_of(post_header(post).span));
    }
    scratch->resize(static_cast<size_t>(end - begin));
    char *span = scratch->data();
    MPI_Offset got = 0;
    if (int error = transfer(fd, span, end - begin, begin, false, &got))
        return error;
    std::memset(span + got, 0, static_cast<size_t>(end - begin - got));
    for (const void *post : posts)
        apply(post, span, begin);
    MPI_Offset done = 0;
    return transfer(fd, span, end - begin, begin, true, &done);
}

}  // namespace piox::adio
