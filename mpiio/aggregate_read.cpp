// See aggregate_read.h.
#include "aggregate_read.h"

#include "access_check.h"
#include "aggregate_pieces.h"
#include "errors.h"
#include "open_file.h"
#include "packed_transfer.h"
#include "piox_fsprobe.h"
#include "piox_log.h"
#include "piox_comm.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

namespace piox::mpiio {
namespace {

// A process asking more pieces than this of one call leaves the call to the library:
// each process's list must fit an MPI count, and so must every datatype's blocks.
constexpr size_t kMostPieces = size_t(1) << 20;

static_assert(sizeof(Piece) == 2 * sizeof(int64_t), "pieces travel as pairs of MPI_INT64_T");

bool fits_int(MPI_Offset n) { return n >= 0 && n <= INT_MAX; }

// Memory at an absolute address: `length` items of the unit the exchange moves.
struct Block {
    const void *at;
    int length;
};

// One MPI_Ialltoallw on MPI_BOTTOM: for each process, the blocks that go to it and
// those that come from it, as one datatype each. It has no sum of counts that must
// fit an int, and moves bytes straight between where they are and where they go.
class Exchange {
  public:
    explicit Exchange(int nranks)
        : send_counts_(static_cast<size_t>(nranks)), recv_counts_(static_cast<size_t>(nranks)),
          zeros_(static_cast<size_t>(nranks)), send_types_(static_cast<size_t>(nranks), MPI_BYTE),
          recv_types_(static_cast<size_t>(nranks), MPI_BYTE)
    {
    }
    ~Exchange()
    {
        for (MPI_Datatype &t : send_types_)
            release(&t);
        for (MPI_Datatype &t : recv_types_)
            release(&t);
    }
    Exchange(const Exchange &) = delete;
    Exchange &operator=(const Exchange &) = delete;

    int send(int to, const std::vector<Block> &blocks, MPI_Datatype unit)
    {
        return describe(blocks, unit, &send_counts_[static_cast<size_t>(to)],
                        &send_types_[static_cast<size_t>(to)]);
    }
    int receive(int from, const std::vector<Block> &blocks, MPI_Datatype unit)
    {
        return describe(blocks, unit, &recv_counts_[static_cast<size_t>(from)],
                        &recv_types_[static_cast<size_t>(from)]);
    }
    // The arrays stay here, untouched, until the request completes (MPI asks that).
    int post(MPI_Comm comm, MPI_Request *request)
    {
        return PMPI_Ialltoallw(MPI_BOTTOM, send_counts_.data(), zeros_.data(), send_types_.data(),
                               MPI_BOTTOM, recv_counts_.data(), zeros_.data(), recv_types_.data(),
                               comm, request);
    }

  private:
    static void release(MPI_Datatype *type)
    {
        if (*type != MPI_BYTE)
            PMPI_Type_free(type);
    }
    static int describe(const std::vector<Block> &blocks, MPI_Datatype unit, int *count,
                        MPI_Datatype *type)
    {
        release(type);
        *type = MPI_BYTE;
        *count = 0;
        if (blocks.empty())
            return MPI_SUCCESS;
        std::vector<int> lengths;
        std::vector<MPI_Aint> addresses;
        for (const Block &b : blocks) {
            MPI_Aint address = 0;
            PMPI_Get_address(b.at, &address);
            lengths.push_back(b.length);
            addresses.push_back(address);
        }
        MPI_Datatype made = MPI_DATATYPE_NULL;
        int rc = PMPI_Type_create_hindexed(static_cast<int>(blocks.size()), lengths.data(),
                                           addresses.data(), unit, &made);
        if (rc == MPI_SUCCESS && (rc = PMPI_Type_commit(&made)) != MPI_SUCCESS)
            PMPI_Type_free(&made);
        if (rc == MPI_SUCCESS)
            *type = made, *count = 1;
        return rc;
    }

    std::vector<int> send_counts_, recv_counts_, zeros_;
    std::vector<MPI_Datatype> send_types_, recv_types_;
};

}  // namespace

// One collective read on its way through the exchange. Its steps, each a nonblocking
// collective on AggregateFile::comm: counts (how many pieces each process asks of
// each, or -1: it declines), pieces (the asks, to the readers), bytes (the readers'
// errno and bytes, to the askers).
struct ReadInFlight {
    enum class Step { queued, counts, pieces, bytes, done };

    explicit ReadInFlight(OpenFile &open_file)
        : file(open_file), agg(*open_file.aggregate), pieces(nranks_of(agg)), bytes(nranks_of(agg))
    {
        PMPI_Comm_size(agg.comm, &nranks);
        PMPI_Comm_rank(agg.comm, &rank);
        asks.to.resize(static_cast<size_t>(nranks));
        asks.into.resize(static_cast<size_t>(nranks));
    }
    ~ReadInFlight()
    {
        if (memory_type != MPI_DATATYPE_NULL)
            PMPI_Type_free(&memory_type);
    }
    static int nranks_of(const AggregateFile &a)
    {
        int n = 0;
        PMPI_Comm_size(a.comm, &n);
        return n;
    }

    OpenFile &file;
    AggregateFile &agg;
    int nranks = 0, rank = 0;
    bool nonblocking = false;
    bool reads_itself = false;  // a nonblocking read piox cannot map: the library's, at once

    // The access, as this process maps it.
    void *buf = nullptr;
    MPI_Count count = 0;
    MPI_Datatype memory_type = MPI_DATATYPE_NULL;  // a duplicate, while the stream is staged
    MPI_Offset bytes_asked = 0, held = 0;
    char *stream = nullptr;           // where the stream's bytes go
    std::vector<char> staged_stream;  // the stream, when buf is not one block
    Requests asks;

    // The exchange.
    std::vector<int> ask_counts, asked_counts;  // pieces, to and from each process
    std::vector<std::vector<Piece>> asked;      // of this process, as a reader
    StagedPieces staged;
    int read_errno = 0;                  // this process's, as a reader
    std::vector<int> reader_errno;       // every process's, as a reader
    std::vector<char> replies;           // to askers whose pieces are not one block of the stage
    std::vector<char> received;          // from readers whose pieces are not one block of the stream
    std::vector<MPI_Offset> reply_from;  // where each reader's reply starts in received (-1: none)
    Exchange pieces, bytes;
    MPI_Request step_requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};  // a step's collectives
    Step step = Step::queued;

    // The outcome.
    int rc = MPI_SUCCESS;
    MPI_Status status{};
    MPI_Request request = MPI_REQUEST_NULL;  // the program's, for a nonblocking read
};

namespace {

// The local part: the access's pieces and where their bytes go; false when piox cannot
// map it (the read is then the library's).
bool map_access(ReadInFlight &r, MPI_Offset offset, MPI_Datatype datatype)
{
    MPI_Count size = 0;
    std::vector<piox_extent> extents;
    if (offset < 0 || access_bytes(r.count, datatype, &r.bytes_asked) != MPI_SUCCESS ||
        !fits_int(r.bytes_asked) || PMPI_Type_size_x(datatype, &size) != MPI_SUCCESS ||
        !access_extents(r.file, offset, r.bytes_asked, &extents))
        return false;
    Requests asks = requests_for(r.agg.plan, extents, r.nranks, r.rank);
    size_t pieces = 0;
    for (const auto &to_reader : asks.to)
        pieces += to_reader.size();
    if (pieces > kMostPieces)
        return false;
    struct stat sb {};
    r.held = held_prefix(extents, fstat(r.agg.fd, &sb) == 0 ? sb.st_size : 0);
    r.stream = contiguous_data(r.buf, datatype, size);
    if (r.stream == nullptr && r.bytes_asked > 0) {
        // The program's bytes first: those past the end of the file keep them.
        r.staged_stream.resize(static_cast<size_t>(r.bytes_asked));
        int position = 0;
        if (PMPI_Pack(r.buf, static_cast<int>(r.count), datatype, r.staged_stream.data(),
                      static_cast<int>(r.bytes_asked), &position, pack_comm()) != MPI_SUCCESS ||
            PMPI_Type_dup(datatype, &r.memory_type) != MPI_SUCCESS)
            return false;
        r.stream = r.staged_stream.data();
    }
    r.asks = std::move(asks);
    r.ask_counts.resize(static_cast<size_t>(r.nranks));
    for (int q = 0; q < r.nranks; q++)
        r.ask_counts[static_cast<size_t>(q)] = static_cast<int>(r.asks.to[static_cast<size_t>(q)].size());
    return true;
}

int post_counts(ReadInFlight &r)
{
    r.asked_counts.assign(static_cast<size_t>(r.nranks), 0);
    return PMPI_Ialltoall(r.ask_counts.data(), 1, MPI_INT, r.asked_counts.data(), 1, MPI_INT,
                          r.agg.comm, &r.step_requests[0]);
}

int post_pieces(ReadInFlight &r)
{
    r.asked.assign(static_cast<size_t>(r.nranks), {});
    for (int q = 0; q < r.nranks; q++) {
        const size_t n = static_cast<size_t>(r.asked_counts[static_cast<size_t>(q)]);
        r.asked[static_cast<size_t>(q)].resize(n);
        const auto &mine = r.asks.to[static_cast<size_t>(q)];
        int rc = MPI_SUCCESS;
        if (!mine.empty())
            rc = r.pieces.send(q, {{mine.data(), static_cast<int>(2 * mine.size())}}, MPI_INT64_T);
        if (rc == MPI_SUCCESS && n > 0)
            rc = r.pieces.receive(q, {{r.asked[static_cast<size_t>(q)].data(), static_cast<int>(2 * n)}},
                                  MPI_INT64_T);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return r.pieces.post(r.agg.comm, &r.step_requests[0]);
}

// Pieces as memory blocks, neighbours joined: where each piece's bytes are
// (`address_of`), in order.
template <typename AddressOf>
std::vector<Block> joined_blocks(const std::vector<Piece> &pieces, AddressOf address_of)
{
    std::vector<Block> blocks;
    for (size_t i = 0; i < pieces.size(); i++) {
        const char *at = address_of(i);
        const int length = static_cast<int>(pieces[i].length);
        if (!blocks.empty() && static_cast<const char *>(blocks.back().at) + blocks.back().length == at)
            blocks.back().length += length;
        else
            blocks.push_back({at, length});
    }
    return blocks;
}

MPI_Offset total_length(const std::vector<Piece> &pieces)
{
    MPI_Offset total = 0;
    for (const Piece &p : pieces)
        total += p.length;
    return total;
}

// The reader's part, reading what it was asked for, and the asker's, room for each
// reader's bytes; then the bytes, and beside them every reader's errno. A reply is one
// block of memory: MPI moves those with one copy, and derived types of scattered
// blocks far slower (MPICH packs them through its shared-memory cells). So the bytes
// go from the stage, and into the stream, where the pieces are one block there (the
// usual case: a share within a chunk); else through a copy.
int post_bytes(ReadInFlight &r)
{
    r.read_errno = 0;
    if (!r.staged.read(r.agg, r.asked))
        r.read_errno = errno != 0 ? errno : EIO;  // its askers fail; nobody waits
    std::vector<Block> sends(static_cast<size_t>(r.nranks), Block{nullptr, 0});
    MPI_Offset copied = 0;
    for (int q = 0; q < r.nranks; q++) {
        const auto &wanted = r.asked[static_cast<size_t>(q)];
        std::vector<Block> blocks =
            joined_blocks(wanted, [&](size_t i) { return r.staged.bytes_of(wanted[i]); });
        if (blocks.size() == 1)
            sends[static_cast<size_t>(q)] = blocks[0];
        else if (blocks.size() > 1)
            copied += total_length(wanted);
        if (q != r.rank)
            r.agg.for_others += static_cast<uint64_t>(total_length(wanted));
    }
    r.replies.resize(static_cast<size_t>(copied));
    char *reply = r.replies.data();
    for (int q = 0; q < r.nranks; q++) {
        const auto &wanted = r.asked[static_cast<size_t>(q)];
        if (!wanted.empty() && sends[static_cast<size_t>(q)].at == nullptr) {
            sends[static_cast<size_t>(q)] = {reply, static_cast<int>(total_length(wanted))};
            for (const Piece &p : wanted)
                std::memcpy(reply, r.staged.bytes_of(p), static_cast<size_t>(p.length)), reply += p.length;
        }
        if (!wanted.empty())
            if (const int rc = r.bytes.send(q, {sends[static_cast<size_t>(q)]}, MPI_BYTE); rc != MPI_SUCCESS)
                return rc;
    }
    // The asker's side: straight into the stream when a reader's pieces are one block of
    // it, all held in the file; else into `received`, copied out by finish.
    r.reply_from.assign(static_cast<size_t>(r.nranks), -1);
    std::vector<Block> receives(static_cast<size_t>(r.nranks), Block{nullptr, 0});
    MPI_Offset indirect = 0;
    for (int q = 0; q < r.nranks; q++) {
        const auto &to_q = r.asks.to[static_cast<size_t>(q)];
        const auto &into = r.asks.into[static_cast<size_t>(q)];
        if (to_q.empty())
            continue;
        std::vector<Block> blocks = joined_blocks(to_q, [&](size_t i) { return r.stream + into[i]; });
        const MPI_Offset length = total_length(to_q);
        if (blocks.size() == 1 && into.front() + length <= r.held) {
            receives[static_cast<size_t>(q)] = blocks[0];
        } else {
            r.reply_from[static_cast<size_t>(q)] = indirect;
            indirect += length;
        }
    }
    r.received.resize(static_cast<size_t>(indirect));
    for (int q = 0; q < r.nranks; q++) {
        const auto &to_q = r.asks.to[static_cast<size_t>(q)];
        if (to_q.empty())
            continue;
        Block &block = receives[static_cast<size_t>(q)];
        if (block.at == nullptr)
            block = {r.received.data() + r.reply_from[static_cast<size_t>(q)],
                     static_cast<int>(total_length(to_q))};
        if (const int rc = r.bytes.receive(q, {block}, MPI_BYTE); rc != MPI_SUCCESS)
            return rc;
    }
    r.reader_errno.assign(static_cast<size_t>(r.nranks), 0);
    const int rc = PMPI_Iallgather(&r.read_errno, 1, MPI_INT, r.reader_errno.data(), 1, MPI_INT,
                                   r.agg.comm, &r.step_requests[1]);
    return rc != MPI_SUCCESS ? rc : r.bytes.post(r.agg.comm, &r.step_requests[0]);
}

// The read's outcome: the bytes that came through `received` into the program's
// buffer (up to the end of the file: bytes past it keep the buffer's contents) and
// its status, or the error of the worst reader it asked.
void finish(ReadInFlight &r)
{
    int worst = 0;
    for (int q = 0; q < r.nranks; q++)
        if (!r.asks.to[static_cast<size_t>(q)].empty())
            worst = std::max(worst, r.reader_errno[static_cast<size_t>(q)]);
    if (worst != 0) {
        const std::string message = "collective read of '" + r.file.filename +
                                    "': a reader failed: " + std::strerror(worst);
        r.rc = r.nonblocking ? error_code(MPI_ERR_IO, message)
                             : raise_error(r.file.fh, MPI_ERR_IO, message);
        return;
    }
    if (r.reads_itself)
        return;  // its bytes and status are the library's
    for (int q = 0; q < r.nranks; q++) {
        if (r.reply_from[static_cast<size_t>(q)] < 0)
            continue;
        const char *reply = r.received.data() + r.reply_from[static_cast<size_t>(q)];
        const auto &to_q = r.asks.to[static_cast<size_t>(q)];
        for (size_t i = 0; i < to_q.size(); i++) {
            const MPI_Offset at = r.asks.into[static_cast<size_t>(q)][i], length = to_q[i].length;
            const MPI_Offset kept = std::clamp<MPI_Offset>(r.held - at, 0, length);
            std::memcpy(r.stream + at, reply, static_cast<size_t>(kept));
            reply += length;
        }
    }
    if (!r.staged_stream.empty()) {
        int position = 0;
        PMPI_Unpack(r.staged_stream.data(), static_cast<int>(r.bytes_asked), &position, r.buf,
                    static_cast<int>(r.count), r.memory_type, pack_comm());
    }
    PMPI_Status_set_elements_x(&r.status, MPI_BYTE, r.held - r.held % r.file.etype_size);
}

// Posts the read's next collective, or finishes it when the last one is done.
void next_step(ReadInFlight &r)
{
    using Step = ReadInFlight::Step;
    int rc = MPI_SUCCESS;
    switch (r.step) {
    case Step::queued:
        rc = post_counts(r);
        r.step = Step::counts;
        break;
    case Step::counts:
        if (std::any_of(r.asked_counts.begin(), r.asked_counts.end(), [](int n) { return n < 0; })) {
            r.rc = kNotAggregated;  // everyone sees the same -1s
            r.step = Step::done;
            return;
        }
        rc = post_pieces(r);
        r.step = Step::pieces;
        break;
    case Step::pieces:
        rc = post_bytes(r);
        r.step = Step::bytes;
        break;
    case Step::bytes:
        finish(r);
        r.step = Step::done;
        return;
    case Step::done:
        return;
    }
    if (rc != MPI_SUCCESS) {
        r.rc = r.nonblocking ? rc : raise_code(r.file.fh, rc);
        r.step = Step::done;
    }
}

// Moves the file's reads in flight on, oldest first: as far as they go without
// waiting, or, with wait, until `until` is done (every one of them when null). Not
// further: a read the program started later may need the others to get past a call
// they make only after this one.
void advance(AggregateFile &agg, bool wait, const ReadInFlight *until = nullptr)
{
    while (!agg.in_flight.empty()) {
        if (wait && until != nullptr && until->step == ReadInFlight::Step::done)
            return;
        ReadInFlight &r = *agg.in_flight.front();
        if (r.step != ReadInFlight::Step::queued) {
            int done = 1;
            const int rc = wait ? PMPI_Waitall(2, r.step_requests, MPI_STATUSES_IGNORE)
                                : PMPI_Testall(2, r.step_requests, &done, MPI_STATUSES_IGNORE);
            if (rc != MPI_SUCCESS) {
                r.rc = r.nonblocking ? rc : raise_code(r.file.fh, rc);
                r.step = ReadInFlight::Step::done;
            } else if (!done) {
                return;
            }
        }
        next_step(r);
        if (r.step == ReadInFlight::Step::done) {
            if (r.request != MPI_REQUEST_NULL)
                PMPI_Grequest_complete(r.request);
            agg.in_flight.pop_front();
        }
    }
}

#ifdef MPICH_VERSION
// The program's request for a nonblocking read: an extended generalized request
// (MPICH's) whose state is a share of the read, advanced by MPI_Wait and MPI_Test
// through poll_read and wait_read.
using ReadShare = std::shared_ptr<ReadInFlight>;

int query_read(void *state, MPI_Status *status)
{
    const ReadInFlight &r = **static_cast<ReadShare *>(state);
    *status = r.status;
    status->MPI_ERROR = r.rc;
    PMPI_Status_set_cancelled(status, 0);
    return r.rc;
}

int free_read(void *state)
{
    delete static_cast<ReadShare *>(state);
    return MPI_SUCCESS;
}

int cancel_read(void *, int) { return MPI_SUCCESS; }  // a read under way runs to its end

int poll_read(void *state, MPI_Status *)
{
    ReadInFlight &r = **static_cast<ReadShare *>(state);
    if (r.step != ReadInFlight::Step::done)  // else the file may be closed
        advance(r.agg, false);
    return MPI_SUCCESS;
}

int wait_read(int count, void **states, double, MPI_Status *)
{
    for (int i = 0; i < count; i++) {
        ReadInFlight &r = **static_cast<ReadShare *>(states[i]);
        if (r.step != ReadInFlight::Step::done)
            advance(r.agg, true, &r);
    }
    return MPI_SUCCESS;
}

int start_request(const std::shared_ptr<ReadInFlight> &read, MPI_Request *request)
{
    auto *state = new ReadShare(read);
    const int rc = PMPIX_Grequest_start(query_read, free_read, cancel_read, poll_read, wait_read,
                                        state, request);
    if (rc != MPI_SUCCESS)
        delete state;
    return rc;
}
#else
int start_request(const std::shared_ptr<ReadInFlight> &, MPI_Request *)
{
    return MPI_ERR_UNSUPPORTED_OPERATION;  // not called: aggregates<A> keeps them from piox
}
#endif

}  // namespace

AggregateFile::AggregateFile() = default;
AggregateFile::~AggregateFile() = default;

int attach(MPI_Comm comm, const std::string &filename, AggregatePlan plan,
           std::unique_ptr<AggregateFile> *out)
{
    auto agg = std::make_unique<AggregateFile>();
    agg->plan = std::move(plan);
    agg->fd = open(piox_path_of(filename.c_str()), O_RDONLY);
    int ok = agg->fd >= 0, all = 0;
    int rc = PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm);
    if (rc == MPI_SUCCESS && all)
        rc = piox_comm_dup_private(comm, &agg->comm);
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
    advance(agg, true);  // MPI calls closing with requests pending erroneous; finish them
    if (agg.fd >= 0)
        close(agg.fd);
    agg.fd = -1;
    return agg.comm != MPI_COMM_NULL ? PMPI_Comm_free(&agg.comm) : MPI_SUCCESS;
}

namespace {

// Says once per file, under PIOX_DEBUG, that this process left a collective read to
// the library.
void tell_declined(AggregateFile &agg, const OpenFile &file)
{
    if (!agg.told_declined)
        piox_debug("'%s': a collective read piox cannot map exactly (its view, its size or its "
                   "pieces) goes to the library, unaggregated (said once per file)",
                   file.filename.c_str());
    agg.told_declined = true;
}

}  // namespace

int aggregate_read(OpenFile &file, MPI_Offset offset, void *buf, MPI_Count count,
                   MPI_Datatype datatype, MPI_Status *status)
{
    auto read = std::make_shared<ReadInFlight>(file);
    read->buf = buf;
    read->count = count;
    if (!map_access(*read, offset, datatype)) {
        read->ask_counts.assign(static_cast<size_t>(read->nranks), -1);  // all go to the library
        tell_declined(*file.aggregate, file);
    }
    file.aggregate->in_flight.push_back(read);
    advance(*file.aggregate, true, read.get());
    if (read->rc == MPI_SUCCESS && status != MPI_STATUS_IGNORE)
        *status = read->status;
    return read->rc;
}

int aggregate_iread(OpenFile &file, MPI_Offset offset, void *buf, MPI_Count count,
                    MPI_Datatype datatype, MPI_Request *request)
{
    if (request == nullptr)
        return raise_error(file.fh, MPI_ERR_REQUEST, "'" + file.filename + "': request is NULL");
    *request = MPI_REQUEST_NULL;
    auto read = std::make_shared<ReadInFlight>(file);
    read->nonblocking = true;
    read->buf = buf;
    read->count = count;
    int rc = MPI_SUCCESS;
    if (!map_access(*read, offset, datatype)) {
        // This process reads its own bytes, at once; it still takes its part in the
        // exchange for the others, asking nothing.
        read->ask_counts.assign(static_cast<size_t>(read->nranks), 0);
        read->reads_itself = true;
        tell_declined(*file.aggregate, file);
        rc = library_transfer<MPI_Count>(file.fh, Direction::read, offset, buf, count, datatype,
                                         file.etype_size, file.native_view, &read->status);
    }
    if (rc == MPI_SUCCESS && (rc = start_request(read, request)) != MPI_SUCCESS)
        rc = raise_code(file.fh, rc);
    if (rc == MPI_SUCCESS)
        read->request = *request;
    file.aggregate->in_flight.push_back(read);  // the others count on its part
    advance(*file.aggregate, false);
    return rc;
}

}  // namespace piox::mpiio
