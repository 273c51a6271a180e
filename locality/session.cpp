// session.cpp - DLI_Init, DLI_Load, DLI_Finalize, and where the six functions get a table.
#include "session.h"

#include <cstring>

#include "error.h"
#include "hosts.h"
#include "providers/posix.h"
#include "providers/provider.h"

namespace dli {
namespace {

void check_mpi(int rc, const char *what) {
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(rc, text, &length);
    throw Error(DLI_ERR_MPI, std::string(what) + ": " + std::string(text, length));
}

// Every rank's blob, gathered to every rank.
std::vector<std::vector<char>> allgather(MPI_Comm comm, const std::vector<char> &mine) {
    int size = 0;
    MPI_Comm_size(comm, &size);
    int length = static_cast<int>(mine.size());
    std::vector<int> lengths(size), offsets(size);
    check_mpi(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm), "MPI_Allgather");
    long long total = 0;
    for (int r = 0; r < size; ++r) {
        offsets[r] = static_cast<int>(total);
        total += lengths[r];
    }
    if (total > INT32_MAX) throw Error(DLI_ERR_NOMEM, "gathered data exceed 2 GiB");
    std::vector<char> all(static_cast<size_t>(total));
    check_mpi(MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(),
                             MPI_CHAR, comm), "MPI_Allgatherv");
    std::vector<std::vector<char>> out(size);
    for (int r = 0; r < size; ++r)
        out[r].assign(all.begin() + offsets[r], all.begin() + offsets[r] + lengths[r]);
    return out;
}

// Rank 0's outcome (a code, a message, a payload) broadcast so every rank returns the same.
std::vector<char> broadcast_outcome(MPI_Comm comm, int *code, std::string *message, std::vector<char> payload) {
    long long header[2] = {*code, static_cast<long long>(*code ? message->size() : payload.size())};
    check_mpi(MPI_Bcast(header, 2, MPI_LONG_LONG, 0, comm), "MPI_Bcast");
    if (header[1] > INT32_MAX) throw Error(DLI_ERR_NOMEM, "chunk table exceeds 2 GiB");
    std::vector<char> body = *code ? std::vector<char>(message->begin(), message->end()) : std::move(payload);
    body.resize(static_cast<size_t>(header[1]));
    check_mpi(MPI_Bcast(body.data(), static_cast<int>(header[1]), MPI_CHAR, 0, comm), "MPI_Bcast");
    *code = static_cast<int>(header[0]);
    if (*code) *message = std::string(body.begin(), body.end());
    return body;
}

void put_i64(std::vector<char> &out, int64_t v) {
    const char *p = reinterpret_cast<const char *>(&v);
    out.insert(out.end(), p, p + sizeof v);
}
void put_string(std::vector<char> &out, const std::string &s) {
    put_i64(out, static_cast<int64_t>(s.size()));
    out.insert(out.end(), s.begin(), s.end());
}

class Reader {
public:
    Reader(const char *data, size_t size) : data_(data), size_(size) {}
    int64_t i64() {
        need(sizeof(int64_t));
        int64_t v;
        std::memcpy(&v, data_ + at_, sizeof v);
        at_ += sizeof v;
        return v;
    }
    std::string string() {
        int64_t n = i64();
        if (n < 0) fail();
        need(static_cast<size_t>(n));
        std::string s(data_ + at_, static_cast<size_t>(n));
        at_ += static_cast<size_t>(n);
        return s;
    }
    bool done() const { return at_ == size_; }

private:
    void need(size_t n) { if (n > size_ - at_) fail(); }
    [[noreturn]] void fail() { throw Error(DLI_ERR_PROTOCOL, "a shared chunk table is truncated"); }
    const char *data_;
    size_t size_, at_ = 0;
};

}  // namespace

std::vector<char> encode_table(const ChunkTable &table) {
    std::vector<char> out;
    put_string(out, table.file);
    put_i64(out, table.file_size);
    put_i64(out, static_cast<int64_t>(table.chunks.size()));
    for (const Chunk &chunk : table.chunks) {
        put_i64(out, chunk.offset);
        put_i64(out, chunk.length);
        put_i64(out, static_cast<int64_t>(chunk.hosts.size()));
        for (const std::string &host : chunk.hosts) put_string(out, host);
    }
    return out;
}

ChunkTable decode_table(const char *data, size_t size) {
    Reader in(data, size);
    ChunkTable table;
    table.file = in.string();
    table.file_size = in.i64();
    int64_t count = in.i64();
    if (count < 0 || static_cast<uint64_t>(count) > size / 24) throw Error(DLI_ERR_PROTOCOL, "bad chunk count");
    table.chunks.resize(static_cast<size_t>(count));
    for (Chunk &chunk : table.chunks) {
        chunk.offset = in.i64();
        chunk.length = in.i64();
        int64_t hosts = in.i64();
        if (hosts < 0 || static_cast<uint64_t>(hosts) > size) throw Error(DLI_ERR_PROTOCOL, "bad host count");
        for (int64_t h = 0; h < hosts; ++h) chunk.hosts.push_back(in.string());
    }
    if (!in.done()) throw Error(DLI_ERR_PROTOCOL, "a shared chunk table has trailing bytes");
    return table;
}

Session::Session() = default;

Session &Session::get() {
    static Session session;
    return session;
}

Config Session::config() {
    std::lock_guard<std::mutex> hold(mutex_);
    if (!environment_read_) {
        config_ = config_from_environment();
        environment_read_ = true;
    }
    return config_;
}

Config agreed_config(MPI_Comm comm, MPI_Info info) {
    // Every rank must agree whether the settings were usable, or some would go on alone.
    int code = DLI_SUCCESS;
    std::string message;
    Config config;
    try {
        config = config_with_hints(config_from_environment(), info);
    } catch (const Error &e) {
        code = e.code();
        message = e.what();
    }
    int worst = code;
    check_mpi(MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
    if (code) throw Error(code, message);
    if (worst) throw Error(worst, "another rank's dli_* settings cannot be used");
    return config;
}

std::vector<std::string> gather_hosts(MPI_Comm comm) {
    std::string host = this_host();
    std::vector<std::string> hosts;
    for (const auto &h : allgather(comm, std::vector<char>(host.begin(), host.end())))
        hosts.emplace_back(h.begin(), h.end());
    return hosts;
}

void Session::init(MPI_Comm comm, MPI_Info info) {
    if (comm == MPI_COMM_NULL) throw Error(DLI_ERR_ARG, "DLI_Init: MPI_COMM_NULL");
    Config config = agreed_config(comm, info);
    std::vector<std::string> hosts = gather_hosts(comm);
    MPI_Comm dup = MPI_COMM_NULL;
    check_mpi(MPI_Comm_dup(comm, &dup), "MPI_Comm_dup");

    std::lock_guard<std::mutex> hold(mutex_);
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
    comm_ = dup;
    config_ = config;
    environment_read_ = true;
    initialized_ = true;
    loaded_.clear();
    rank_hosts_ = std::move(hosts);
}

void Session::finalize() {
    std::lock_guard<std::mutex> hold(mutex_);
    if (!initialized_) throw Error(DLI_ERR_NOT_INIT, "DLI_Finalize without DLI_Init");
    check_mpi(MPI_Barrier(comm_), "MPI_Barrier");
    MPI_Comm_free(&comm_);
    initialized_ = false;
    environment_read_ = false;
    loaded_.clear();
    rank_hosts_.clear();
}

namespace {

// Every rank tells what its host holds; each host counts once (its lowest rank speaks).
ChunkTable load_posix(MPI_Comm comm, const std::vector<std::string> &rank_hosts, const std::string &name,
                      const Config &config) {
    std::vector<std::vector<char>> blobs = allgather(comm, encode_holding(posix_holding(name)));
    std::vector<std::string> hosts;
    std::vector<PosixHolding> holdings;
    for (size_t r = 0; r < blobs.size(); ++r) {
        bool seen = false;
        for (const std::string &h : hosts) seen = seen || same_host(h, rank_hosts[r]);
        if (seen) continue;
        hosts.push_back(rank_hosts[r]);
        holdings.push_back(decode_holding(blobs[r].data(), blobs[r].size()));
    }
    return combine_posix_holdings(name, config, hosts, holdings);
}

// Rank 0 asks the storage once; the others get its answer, or its error.
ChunkTable load_from_root(MPI_Comm comm, const std::string &name, const Config &config) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    int code = DLI_SUCCESS;
    std::string message;
    std::vector<char> payload;
    if (rank == 0) {
        try {
            payload = encode_table(provider_for(name, config)->chunks(name));
        } catch (const Error &e) {
            code = e.code();
            message = e.what();
        }
    }
    std::vector<char> body = broadcast_outcome(comm, &code, &message, std::move(payload));
    if (code) throw Error(code, message);
    return decode_table(body.data(), body.size());
}

}  // namespace

ChunkTable load_collectively(MPI_Comm comm, const std::vector<std::string> &rank_hosts,
                             const std::string &name, const Config &config) {
    // Every rank picks the same provider: the choice depends on the name and settings
    // only (a CephFS mount is mounted everywhere or the job is misconfigured).
    // 1: local file, 2: rank 0 asks, 3: no provider here. Ranks that disagree would not
    // meet in the same collective, so all must agree first.
    // 3 carries why and its code: a missing provider, or a map file that cannot be read.
    int choice = 3, code = DLI_ERR_UNSUPPORTED;
    std::string why;
    try {
        choice = std::string(provider_for(name, config)->name()) == "posix" ? 1 : 2;
    } catch (const Error &e) {
        why = e.what();
        code = e.code();
    }
    int range[2] = {-choice, choice};
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, range, 2, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
    if (choice == 3) throw Error(code, why);
    if (-range[0] != range[1])
        throw Error(DLI_ERR_ARG, name + ": the ranks do not agree which storage holds it");
    return choice == 1 ? load_posix(comm, rank_hosts, name, config) : load_from_root(comm, name, config);
}

void Session::load(const std::string &name) {
    Config config;
    MPI_Comm comm = MPI_COMM_NULL;
    std::vector<std::string> hosts;
    {
        std::lock_guard<std::mutex> hold(mutex_);
        if (!initialized_) throw Error(DLI_ERR_NOT_INIT, "DLI_Load before DLI_Init");
        config = config_;
        comm = comm_;
        hosts = rank_hosts_;
    }
    auto table = std::make_shared<const ChunkTable>(load_collectively(comm, hosts, name, config));
    std::lock_guard<std::mutex> hold(mutex_);
    loaded_[name] = std::move(table);
}

std::shared_ptr<const ChunkTable> Session::table(const std::string &name) {
    {
        std::lock_guard<std::mutex> hold(mutex_);
        auto found = loaded_.find(name);
        if (found != loaded_.end()) return found->second;
    }
    return std::make_shared<const ChunkTable>(provider_for(name, config())->chunks(name));
}

std::vector<std::string> Session::list_directory(const std::string &name) {
    return provider_for(name, config())->list_directory(name);
}

}  // namespace dli
