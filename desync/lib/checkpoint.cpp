// checkpoint.cpp - the checkpoint file's layout, records and I/O (checkpoint.h).
#include "checkpoint.h"

#include "desync.h"
#include "store.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <numeric>

namespace desync {

namespace {

const MPI_Offset RECORD_BYTES = 512; // a record per slot, at slot * 512
const MPI_Offset SLOTS_AT = 4096;
const char MAGIC[8] = {'D', 'E', 'S', 'Y', 'N', 'C', 'K', '1'};

struct Record {
    char magic[8];
    uint64_t identity; // Job::checkpoint_identity(), hashed
    int64_t version;   // held whole by the record's slot
    uint64_t stride;
    uint64_t check;    // of the fields above: a torn record is not taken
};

uint64_t fnv1a(const void *data, size_t size)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < size; i++) {
        h ^= static_cast<const unsigned char *>(data)[i];
        h *= 1099511628211ull;
    }
    return h;
}

uint64_t record_check(const Record &r)
{
    return fnv1a(&r, offsetof(Record, check));
}

std::string mpi_text(int code)
{
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    return std::string(text, static_cast<size_t>(length));
}

} // namespace

int Checkpoint::open(MPI_Comm comm, const Job &job, int *resume, std::string *why)
{
    job_ = &job;
    *resume = -1;
    stride_ = (BLOCK_HEADER + static_cast<size_t>(job.checkpoint_block) + 7) / 8 * 8;
    std::string identity = job.checkpoint_identity();
    identity_ = fnv1a(identity.data(), identity.size());
    long long blocks = 0;
    for (const FileShape &f : job.files) {
        first_block_.push_back(blocks);
        blocks += f.blocks_per_version();
    }
    slot_bytes_ = static_cast<MPI_Offset>(blocks) * static_cast<MPI_Offset>(stride_);

    int rc = MPI_File_open(comm, job.checkpoint.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &file_);
    if (rc != MPI_SUCCESS) {
        file_ = MPI_FILE_NULL;
        *why = "cannot open the checkpoint file " + job.checkpoint + ": " + mpi_text(rc);
        return DESYNC_ERR_IO;
    }
    MPI_File_set_errhandler(file_, MPI_ERRORS_RETURN);
    // Rank 0 reads the records and decides; everyone learns the outcome.
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    char verdict[512] = {0}; // empty: accepted; else why not
    long long found = -1;
    if (rank == 0) {
        MPI_Offset size = 0;
        MPI_File_get_size(file_, &size);
        Record records[2];
        std::memset(records, 0, sizeof records);
        bool any_magic = false;
        for (int s = 0; s < 2 && size > 0; s++) {
            MPI_Status status;
            if (size >= s * RECORD_BYTES + static_cast<MPI_Offset>(sizeof(Record)))
                MPI_File_read_at(file_, s * RECORD_BYTES, &records[s], sizeof(Record), MPI_BYTE, &status);
            const Record &r = records[s];
            if (std::memcmp(r.magic, MAGIC, sizeof MAGIC) != 0)
                continue;
            any_magic = true;
            if (r.check != record_check(r))
                continue; // torn: the other slot's record stands
            if (r.identity != identity_ || r.stride != stride_) {
                std::snprintf(verdict, sizeof verdict,
                              "the checkpoint file %s belongs to another job (its files, desync_replicate or "
                              "desync_checkpoint_block differ); remove it or name another",
                              job.checkpoint.c_str());
                break;
            }
            found = std::max<long long>(found, r.version);
        }
        if (!verdict[0] && size > 0 && !any_magic)
            std::snprintf(verdict, sizeof verdict,
                          "%s is not a DesyncFS checkpoint (%lld bytes, no record): remove it or name another",
                          job.checkpoint.c_str(), static_cast<long long>(size));
    }
    MPI_Bcast(verdict, sizeof verdict, MPI_CHAR, 0, comm);
    MPI_Bcast(&found, 1, MPI_LONG_LONG, 0, comm);
    if (verdict[0]) {
        *why = verdict;
        close();
        return DESYNC_ERR_HINT;
    }
    *resume = static_cast<int>(found);
    return DESYNC_SUCCESS;
}

MPI_Offset Checkpoint::offset(const Address &a, int version) const
{
    const FileShape *f = job_->file(a.file());
    size_t fi = static_cast<size_t>(f - job_->files.data());
    long long linear = 0;
    for (size_t k = 0; k < f->extent.size(); k++)
        linear = linear * f->extent[k] + a.d[2 + k];
    int slot = (version / job_->replicate) % 2;
    return SLOTS_AT + slot * slot_bytes_ + static_cast<MPI_Offset>(first_block_[fi] + linear) *
                                               static_cast<MPI_Offset>(stride_);
}

int Checkpoint::read(const std::vector<Address> &blocks, int resume, std::vector<char> *records, std::string *why)
{
    // One collective read through a view of this process's records, in file order.
    std::vector<size_t> order(blocks.size());
    std::iota(order.begin(), order.end(), 0);
    std::vector<MPI_Aint> at(blocks.size());
    for (size_t i = 0; i < blocks.size(); i++)
        at[i] = static_cast<MPI_Aint>(offset(blocks[i], resume));
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return at[x] < at[y]; });
    std::vector<MPI_Aint> sorted(blocks.size());
    for (size_t i = 0; i < order.size(); i++)
        sorted[i] = at[order[i]];
    MPI_Datatype view;
    int n = static_cast<int>(blocks.size());
    MPI_Type_create_hindexed_block(n, static_cast<int>(stride_), n ? sorted.data() : nullptr, MPI_BYTE, &view);
    MPI_Type_commit(&view);
    std::vector<char> in(blocks.size() * stride_);
    MPI_Status status;
    int rc = MPI_File_set_view(file_, 0, MPI_BYTE, view, "native", MPI_INFO_NULL);
    if (rc == MPI_SUCCESS)
        rc = MPI_File_read_at_all(file_, 0, in.data(), static_cast<int>(in.size()), MPI_BYTE, &status);
    int count = 0;
    if (rc == MPI_SUCCESS)
        MPI_Get_count(&status, MPI_BYTE, &count);
    int reset = MPI_File_set_view(file_, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    MPI_Type_free(&view);
    if (rc != MPI_SUCCESS || reset != MPI_SUCCESS) {
        *why = "reading the checkpoint file " + job_->checkpoint + " failed: " + mpi_text(rc != MPI_SUCCESS ? rc : reset);
        return DESYNC_ERR_IO;
    }
    if (static_cast<size_t>(count) != in.size()) {
        *why = "the checkpoint file " + job_->checkpoint + " is shorter than its record of version " +
               std::to_string(resume) + " says";
        return DESYNC_ERR_IO;
    }
    records->assign(in.size(), 0);
    for (size_t i = 0; i < order.size(); i++)
        std::memcpy(records->data() + order[i] * stride_, in.data() + i * stride_, stride_);
    return DESYNC_SUCCESS;
}

int Checkpoint::write(const Address &a, const char *record, size_t size, MPI_Request *request)
{
    return MPI_File_iwrite_at(file_, offset(a, a.version()), record, static_cast<int>(size), MPI_BYTE, request);
}

int Checkpoint::commit(int version, std::string *why)
{
    Record r;
    std::memset(&r, 0, sizeof r);
    std::memcpy(r.magic, MAGIC, sizeof MAGIC);
    r.identity = identity_;
    r.version = version;
    r.stride = stride_;
    r.check = record_check(r);
    MPI_Status status;
    int slot = (version / job_->replicate) % 2;
    int rc = MPI_File_write_at(file_, slot * RECORD_BYTES, &r, sizeof r, MPI_BYTE, &status);
    if (rc != MPI_SUCCESS) {
        *why = "writing the checkpoint file's record failed: " + mpi_text(rc);
        return DESYNC_ERR_IO;
    }
    return DESYNC_SUCCESS;
}

int Checkpoint::close()
{
    if (file_ == MPI_FILE_NULL)
        return MPI_SUCCESS;
    return MPI_File_close(&file_);
}

} // namespace desync
