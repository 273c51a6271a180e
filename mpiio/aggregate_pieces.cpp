// See aggregate_pieces.h.
#include "aggregate_pieces.h"

#include "aggregate_read.h"
#include "open_file.h"
#include "piox_view.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace piox::mpiio {
namespace {

constexpr size_t kMostExtents = size_t(1) << 20;  // an access mapped to more is the library's
constexpr MPI_Offset kSieveGap = 64 << 10;         // a reader reads across gaps this small, within a chunk

// The chunk holding file byte `at`; plan.chunk_end.size() past the last chunk.
size_t chunk_of(const AggregatePlan &plan, MPI_Offset at)
{
    return static_cast<size_t>(std::upper_bound(plan.chunk_end.begin(), plan.chunk_end.end(), at) -
                               plan.chunk_end.begin());
}

// Reads [offset, offset + length) with pread into data; bytes past the end of the file
// are left as zeros. False with errno on an error.
bool read_range(int fd, char *data, MPI_Offset length, MPI_Offset offset)
{
    for (MPI_Offset done = 0; done < length;) {
        const ssize_t got = pread(fd, data + done, static_cast<size_t>(length - done), offset + done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return false;
        if (got == 0) {
            std::memset(data + done, 0, static_cast<size_t>(length - done));
            return true;
        }
        done += got;
    }
    return true;
}

}  // namespace

bool access_extents(OpenFile &file, MPI_Offset offset, MPI_Offset bytes,
                    std::vector<piox_extent> *out)
{
    out->clear();
    if (bytes == 0)
        return true;
    if (file.atomic == nullptr) {
        if (!file.default_view)
            return false;
        out->push_back({offset, bytes});
        return true;
    }
    AtomicFile &atomic = *file.atomic;
    if (current_view(atomic) != MPI_SUCCESS || !atomic.native)
        return false;
    // MPI filetypes place bytes at nondecreasing offsets, so piox_view_extents's file
    // order is stream order when nothing overlaps. Its answer is exact when it covers
    // the access's bytes exactly; more bytes means coarsened (too many pieces for the
    // cap, or whole tiles covered in groups, even below the cap): ask again with a
    // larger one. Fewer means pieces overlap: piox cannot map that.
    for (size_t cap = 64;; cap *= 4) {
        out->resize(cap);
        int n = 0;
        if (piox_view_extents(atomic.view, offset, bytes, out->data(), static_cast<int>(cap),
                              &n) != MPI_SUCCESS)
            return false;
        out->resize(static_cast<size_t>(n));
        MPI_Offset covered = 0;
        for (const piox_extent &e : *out)
            covered += e.length;
        if (covered == bytes)
            return true;
        if (covered < bytes || cap >= kMostExtents)
            return false;
    }
}

Requests requests_for(const AggregatePlan &plan, const std::vector<piox_extent> &extents,
                      int nranks, int rank)
{
    Requests req{std::vector<std::vector<Piece>>(static_cast<size_t>(nranks)),
                 std::vector<std::vector<MPI_Offset>>(static_cast<size_t>(nranks))};
    MPI_Offset stream = 0;
    for (const piox_extent &e : extents) {
        for (MPI_Offset at = e.offset, end = e.offset + e.length; at < end;) {
            const size_t c = chunk_of(plan, at);
            const bool known = c < plan.chunk_end.size();
            const MPI_Offset piece_end = known ? std::min(end, plan.chunk_end[c]) : end;
            const int reader = known ? plan.reader[c] : rank;
            req.to[static_cast<size_t>(reader)].push_back({at, piece_end - at});
            req.into[static_cast<size_t>(reader)].push_back(stream);
            stream += piece_end - at;
            at = piece_end;
        }
    }
    return req;
}

MPI_Offset held_prefix(const std::vector<piox_extent> &extents, MPI_Offset file_size)
{
    MPI_Offset held = 0;
    for (const piox_extent &e : extents) {
        const MPI_Offset in_file = std::max<MPI_Offset>(0, std::min(e.length, file_size - e.offset));
        held += in_file;
        if (in_file < e.length)
            break;
    }
    return held;
}

bool StagedPieces::read(AggregateFile &agg, const std::vector<std::vector<Piece>> &asked)
{
    std::vector<Piece> sorted;
    for (const auto &pieces : asked)
        sorted.insert(sorted.end(), pieces.begin(), pieces.end());
    std::sort(sorted.begin(), sorted.end(),
              [](const Piece &a, const Piece &b) { return a.offset < b.offset; });
    // Merged: pieces that touch or overlap, and pieces of one chunk across a small gap
    // (that chunk's bytes are where the reader is; another chunk's may not be).
    ranges_.clear();
    for (const Piece &p : sorted) {
        const MPI_Offset end = ranges_.empty() ? 0 : ranges_.back().offset + ranges_.back().length;
        const bool joins = !ranges_.empty() &&
                           (p.offset <= end || (p.offset - end <= kSieveGap &&
                                                chunk_of(agg.plan, end - 1) == chunk_of(agg.plan, p.offset)));
        if (joins)
            ranges_.back().length = std::max(ranges_.back().length, p.offset + p.length - ranges_.back().offset);
        else
            ranges_.push_back(p);
    }
    starts_.clear();
    MPI_Offset staged = 0;
    for (const Piece &r : ranges_)
        starts_.push_back(staged), staged += r.length;
    data_.assign(static_cast<size_t>(staged), 0);
    for (size_t i = 0; i < ranges_.size(); i++) {
        if (!read_range(agg.fd, data_.data() + starts_[i], ranges_[i].length, ranges_[i].offset))
            return false;
        for (MPI_Offset at = ranges_[i].offset, end = at + ranges_[i].length; at < end;) {
            const size_t c = chunk_of(agg.plan, at);
            const MPI_Offset to = c < agg.plan.chunk_end.size() ? std::min(end, agg.plan.chunk_end[c]) : end;
            const bool local = c < agg.plan.local.size() && agg.plan.local[c];
            (local ? agg.local_bytes : agg.remote_bytes) += static_cast<uint64_t>(to - at);
            at = to;
        }
    }
    return true;
}

const char *StagedPieces::bytes_of(const Piece &piece) const
{
    // The range holding the piece: the last one starting at or before it.
    const size_t r = static_cast<size_t>(
        std::upper_bound(ranges_.begin(), ranges_.end(), piece.offset,
                         [](MPI_Offset at, const Piece &range) { return at < range.offset; }) -
        ranges_.begin()) - 1;
    return data_.data() + starts_[r] + (piece.offset - ranges_[r].offset);
}

}  // namespace piox::mpiio
