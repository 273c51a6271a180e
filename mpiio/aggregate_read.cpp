// See aggregate_read.h.
#include "aggregate_read.h"

#include "access_check.h"
#include "errors.h"
#include "open_file.h"
#include "packed_transfer.h"
#include "piox_fsprobe.h"
#include "piox_view.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

namespace piox::mpiio {
namespace {

constexpr size_t kMostExtents = size_t(1) << 20;  // an access mapped to more is the library's
constexpr MPI_Offset kSieveGap = 64 << 10;         // a reader reads across gaps this small, within a chunk

// A run of file bytes one rank asks one reader for.
struct Piece {
    int64_t offset, length;
};

// The file bytes of an access, in stream order, exactly; false when piox cannot map
// them (no flattened view, a representation other than "native", too many pieces, a
// filetype that reads bytes twice).
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
    for (size_t cap = 64;; cap *= 4) {
        out->resize(cap);
        int n = 0;
        if (piox_view_extents(atomic.view, offset, bytes, out->data(), static_cast<int>(cap),
                              &n) != MPI_SUCCESS)
            return false;
        if (static_cast<size_t>(n) < cap) {  // not coarsened: exact
            out->resize(static_cast<size_t>(n));
            MPI_Offset covered = 0;
            for (const piox_extent &e : *out)
                covered += e.length;
            return covered == bytes;
        }
        if (cap >= kMostExtents)
            return false;
    }
}

// The chunk holding file byte `at`; plan.chunk_end.size() past the last chunk.
size_t chunk_of(const AggregatePlan &plan, MPI_Offset at)
{
    return static_cast<size_t>(std::upper_bound(plan.chunk_end.begin(), plan.chunk_end.end(), at) -
                               plan.chunk_end.begin());
}

// What one rank asks of every reader: pieces split at chunk boundaries, grouped by
// reader, and where each piece's bytes go in the rank's stream.
struct Requests {
    std::vector<std::vector<Piece>> to;         // per reader
    std::vector<std::vector<MPI_Offset>> into;  // per reader, per piece: stream position
};

Requests requests_for(const AggregatePlan &plan, const std::vector<piox_extent> &extents,
                      int nranks, int rank)
{
    Requests req{std::vector<std::vector<Piece>>(static_cast<size_t>(nranks)),
                 std::vector<std::vector<MPI_Offset>>(static_cast<size_t>(nranks))};
    MPI_Offset stream = 0;
    for (const piox_extent &e : extents) {
        for (MPI_Offset at = e.offset, end = e.offset + e.length; at < end;) {
            const size_t c = chunk_of(plan, at);
            // Bytes past the chunk table (the file grew since open): read them yourself.
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

// The reader's part: every piece the ranks asked it for, read once (neighbouring
// pieces in one read across small gaps), copied into one reply per rank in the order
// asked. Counts bytes read for the statistics. errno-style failure: false.
bool serve(AggregateFile &agg, int rank, const std::vector<std::vector<Piece>> &asked,
           std::vector<char> *replies)
{
    std::vector<Piece> sorted;
    MPI_Offset total = 0;
    for (const auto &pieces : asked)
        for (const Piece &p : pieces)
            sorted.push_back(p), total += p.length;
    std::sort(sorted.begin(), sorted.end(),
              [](const Piece &a, const Piece &b) { return a.offset < b.offset; });
    // Merged: pieces that touch or overlap, and pieces of one chunk across a small gap
    // (that chunk's bytes are where the reader is; another chunk's may not be).
    std::vector<Piece> ranges;
    for (const Piece &p : sorted) {
        const MPI_Offset end = ranges.empty() ? 0 : ranges.back().offset + ranges.back().length;
        const bool joins = !ranges.empty() &&
                           (p.offset <= end || (p.offset - end <= kSieveGap &&
                                                chunk_of(agg.plan, end - 1) == chunk_of(agg.plan, p.offset)));
        if (joins)
            ranges.back().length = std::max(ranges.back().length, p.offset + p.length - ranges.back().offset);
        else
            ranges.push_back(p);
    }
    std::vector<MPI_Offset> starts;  // each range's place in the staging buffer
    MPI_Offset staged = 0;
    for (const Piece &r : ranges)
        starts.push_back(staged), staged += r.length;
    std::vector<char> stage(static_cast<size_t>(staged));
    for (size_t i = 0; i < ranges.size(); i++) {
        if (!read_range(agg.fd, stage.data() + starts[i], ranges[i].length, ranges[i].offset))
            return false;
        for (MPI_Offset at = ranges[i].offset, end = at + ranges[i].length; at < end;) {
            const size_t c = chunk_of(agg.plan, at);
            const MPI_Offset to = c < agg.plan.chunk_end.size() ? std::min(end, agg.plan.chunk_end[c]) : end;
            const bool local = c < agg.plan.local.size() && agg.plan.local[c];
            (local ? agg.local_bytes : agg.remote_bytes) += static_cast<uint64_t>(to - at);
            at = to;
        }
    }
    replies->resize(static_cast<size_t>(total));
    MPI_Offset out = 0;
    for (size_t q = 0; q < asked.size(); q++) {
        for (const Piece &p : asked[q]) {
            // The range holding p: the last one starting at or before it.
            const size_t r = static_cast<size_t>(
                std::upper_bound(ranges.begin(), ranges.end(), p.offset,
                                 [](MPI_Offset at, const Piece &range) { return at < range.offset; }) -
                ranges.begin()) - 1;
            std::memcpy(replies->data() + out, stage.data() + starts[r] + (p.offset - ranges[r].offset),
                        static_cast<size_t>(p.length));
            out += p.length;
            if (static_cast<int>(q) != rank)
                agg.for_others += static_cast<uint64_t>(p.length);
        }
    }
    return true;
}

// Bytes of the stream that the file holds: up to the first byte at or past its end.
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

bool fits_int(MPI_Offset n) { return n >= 0 && n <= INT_MAX; }

// MPI_Alltoallv's displacements for `counts`; the total in *sum.
std::vector<int> displacements(const std::vector<int> &counts, MPI_Offset *sum)
{
    std::vector<int> displ;
    MPI_Offset at = 0;
    for (int n : counts)
        displ.push_back(static_cast<int>(at)), at += n;
    *sum = at;
    return displ;
}

// The received pieces, into the rank's buffer in stream order: the buffer itself when
// it is one contiguous block, else a staged copy, unpacked; bytes past the end of the
// file keep the buffer's contents. The status counts the bytes the file held.
int deliver(OpenFile &file, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Count size,
            MPI_Offset bytes, MPI_Offset held, const Requests &req, const std::vector<char> &received,
            const std::vector<int> &received_displ, MPI_Status *status)
{
    char *stream = contiguous_data(buf, datatype, size);
    std::vector<char> staged;
    int position = 0;
    if (stream == nullptr && bytes > 0) {
        staged.resize(static_cast<size_t>(bytes));
        if (PMPI_Pack(buf, static_cast<int>(count), datatype, staged.data(), static_cast<int>(bytes),
                      &position, pack_comm()) != MPI_SUCCESS)
            return raise_error(file.fh, MPI_ERR_TYPE,
                               "collective read of '" + file.filename +
                                   "': piox cannot unpack into the memory type");
        stream = staged.data();
    }
    for (size_t q = 0; q < req.to.size(); q++) {
        MPI_Offset from = received_displ[q];
        for (size_t i = 0; i < req.to[q].size(); i++) {
            const MPI_Offset at = req.into[q][i], length = req.to[q][i].length;
            const MPI_Offset keep = std::max<MPI_Offset>(0, std::min(length, held - at));
            std::memcpy(stream + at, received.data() + from, static_cast<size_t>(keep));
            from += length;
        }
    }
    if (!staged.empty()) {
        position = 0;
        PMPI_Unpack(staged.data(), static_cast<int>(bytes), &position, buf, static_cast<int>(count),
                    datatype, pack_comm());
    }
    if (status != MPI_STATUS_IGNORE) {
        std::memset(status, 0, sizeof *status);
        PMPI_Status_set_elements_x(status, MPI_BYTE, held - held % file.etype_size);
    }
    return MPI_SUCCESS;
}

}  // namespace

int attach(MPI_Comm comm, const std::string &filename, AggregatePlan plan,
           std::unique_ptr<AggregateFile> *out)
{
    auto agg = std::make_unique<AggregateFile>();
    agg->plan = std::move(plan);
    agg->fd = open(piox_path_of(filename.c_str()), O_RDONLY);
    int ok = agg->fd >= 0, all = 0;
    int rc = PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm);
    if (rc == MPI_SUCCESS && all)
        rc = PMPI_Comm_dup(comm, &agg->comm);
    if (rc != MPI_SUCCESS || !all) {
        if (agg->fd >= 0)
            close(agg->fd);
        return rc != MPI_SUCCESS ? rc : MPI_ERR_FILE;
    }
    *out = std::move(agg);
    return MPI_SUCCESS;
}

int detach(AggregateFile &agg)
{
    if (agg.fd >= 0)
        close(agg.fd);
    agg.fd = -1;
    return agg.comm != MPI_COMM_NULL ? PMPI_Comm_free(&agg.comm) : MPI_SUCCESS;
}

int aggregate_read(OpenFile &file, MPI_Offset offset, void *buf, MPI_Count count,
                   MPI_Datatype datatype, MPI_Status *status)
{
    AggregateFile &agg = *file.aggregate;
    int nranks = 0, rank = 0;
    PMPI_Comm_size(agg.comm, &nranks);
    PMPI_Comm_rank(agg.comm, &rank);
    MPI_Offset bytes = 0;
    MPI_Count size = 0;
    std::vector<piox_extent> extents;
    // MPI_Alltoallv counts and displacements are ints: a rank's bytes must fit one.
    bool ok = offset >= 0 && access_bytes(count, datatype, &bytes) == MPI_SUCCESS &&
              fits_int(bytes) && PMPI_Type_size_x(datatype, &size) == MPI_SUCCESS &&
              access_extents(file, offset, bytes, &extents);
    Requests req;
    std::vector<int> send_counts(static_cast<size_t>(nranks)), recv_bytes(static_cast<size_t>(nranks));
    if (ok) {
        req = requests_for(agg.plan, extents, nranks, rank);
        for (int q = 0; q < nranks; q++) {
            MPI_Offset from_q = 0;
            for (const Piece &p : req.to[static_cast<size_t>(q)])
                from_q += p.length;
            ok = ok && fits_int(2 * static_cast<MPI_Offset>(req.to[static_cast<size_t>(q)].size())) &&
                 fits_int(from_q);
            send_counts[static_cast<size_t>(q)] = static_cast<int>(2 * req.to[static_cast<size_t>(q)].size());
            recv_bytes[static_cast<size_t>(q)] = static_cast<int>(from_q);
        }
    }
    // Every process moves its data the same way, or none does.
    int mine = ok, all = 0;
    if (PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, agg.comm) != MPI_SUCCESS || !all)
        return kNotAggregated;

    // Phase 1: the requests, to their readers.
    std::vector<int> asked_counts(static_cast<size_t>(nranks));
    int rc = PMPI_Alltoall(send_counts.data(), 1, MPI_INT, asked_counts.data(), 1, MPI_INT, agg.comm);
    std::vector<int64_t> outgoing;
    for (const auto &pieces : req.to)
        for (const Piece &p : pieces)
            outgoing.push_back(p.offset), outgoing.push_back(p.length);
    MPI_Offset sent = 0, asked_total = 0;
    const std::vector<int> sdispl = displacements(send_counts, &sent);
    const std::vector<int> rdispl = displacements(asked_counts, &asked_total);
    std::vector<int64_t> incoming(static_cast<size_t>(asked_total));
    if (rc == MPI_SUCCESS)
        rc = PMPI_Alltoallv(outgoing.data(), send_counts.data(), sdispl.data(), MPI_INT64_T,
                            incoming.data(), asked_counts.data(), rdispl.data(), MPI_INT64_T, agg.comm);

    // Phase 2: read what was asked, and send it back.
    std::vector<std::vector<Piece>> asked(static_cast<size_t>(nranks));
    std::vector<int> reply_counts(static_cast<size_t>(nranks));
    MPI_Offset replies_total = 0;
    for (int q = 0, at = 0; q < nranks; q++) {
        MPI_Offset to_q = 0;
        for (int i = 0; i < asked_counts[static_cast<size_t>(q)]; i += 2, at += 2) {
            asked[static_cast<size_t>(q)].push_back({incoming[static_cast<size_t>(at)], incoming[static_cast<size_t>(at + 1)]});
            to_q += incoming[static_cast<size_t>(at + 1)];
        }
        reply_counts[static_cast<size_t>(q)] = static_cast<int>(to_q);  // the asker checked it fits
        replies_total += to_q;
    }
    // A reader's replies must fit an int too; else every process goes to the library.
    int fits = rc == MPI_SUCCESS && fits_int(replies_total), all_fit = 0;
    if (PMPI_Allreduce(&fits, &all_fit, 1, MPI_INT, MPI_LAND, agg.comm) != MPI_SUCCESS || !all_fit)
        return rc != MPI_SUCCESS ? raise_code(file.fh, rc) : kNotAggregated;
    std::vector<char> replies;
    int read_errno = 0;
    if (rc == MPI_SUCCESS && !serve(agg, rank, asked, &replies))
        read_errno = errno != 0 ? errno : EIO;
    // A reader that failed still sends (zeros), so that nobody waits; all then fail below.
    replies.resize(static_cast<size_t>(replies_total));
    MPI_Offset received_total = 0;
    const std::vector<int> reply_displ = displacements(reply_counts, &replies_total);
    const std::vector<int> got_displ = displacements(recv_bytes, &received_total);
    std::vector<char> received(static_cast<size_t>(received_total));
    if (rc == MPI_SUCCESS)
        rc = PMPI_Alltoallv(replies.data(), reply_counts.data(), reply_displ.data(), MPI_BYTE,
                            received.data(), recv_bytes.data(), got_displ.data(), MPI_BYTE, agg.comm);
    int worst_errno = read_errno;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Allreduce(&read_errno, &worst_errno, 1, MPI_INT, MPI_MAX, agg.comm);
    if (rc != MPI_SUCCESS)
        return raise_code(file.fh, rc);
    if (worst_errno != 0)
        return raise_error(file.fh, MPI_ERR_IO,
                           "collective read of '" + file.filename + "': a reader failed: " +
                               std::strerror(worst_errno));

    struct stat sb {};
    const MPI_Offset file_size = fstat(agg.fd, &sb) == 0 ? sb.st_size : 0;
    return deliver(file, buf, count, datatype, size, bytes, held_prefix(extents, file_size), req,
                   received, got_displ, status);
}

}  // namespace piox::mpiio
