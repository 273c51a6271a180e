// checkpoint_role.cpp - desync_checkpoint (NOTES.md 2.6) in the runtime: at the start,
// resuming from the last version the file holds whole; while running, writing this
// process's blocks of every replicated version (independent nonblocking writes from
// the blocks' own buffers: a collective per version would make every process wait
// for the slowest, which is what DesyncFS is for), and on the map, recording a
// version once every live process has written its share. A test's crash of the
// whole job (desync_test_abort) is here too.
#include "runtime.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>

namespace desync {

int Runtime::resume(MPI_Comm comm, int *version)
{
    *version = -1;
    if (job_.checkpoint.empty())
        return DESYNC_SUCCESS;
    std::string why;
    int rc = checkpoint_.open(comm, job_, version, &why);
    if (rc != DESYNC_SUCCESS)
        return fail(rc, why);
    saved_complete_ = saved_through_ = *version;
    stats_.resumed_from = *version;
    return DESYNC_SUCCESS;
}

// Collective: this process's blocks of `version` (its leases' as laid out for the
// restart) from the file, checked against their addresses, bound as made here and
// pushed on as if just made.
int Runtime::read_resumed(int version)
{
    if (version < 0)
        return DESYNC_SUCCESS;
    std::vector<Address> blocks;
    for (const OwnLease &own : own_) {
        const Lease &lease = leases_->lease(own.lease);
        if (lease.v0 <= version && version <= lease.v1)
            for (const Address &a : lease.addresses(version))
                blocks.push_back(a);
    }
    std::vector<char> records;
    std::string why;
    int rc = checkpoint_.read(blocks, version, &records, &why);
    if (rc != DESYNC_SUCCESS)
        return fail(rc, why);
    size_t stride = checkpoint_.stride();
    for (size_t i = 0; i < blocks.size(); i++) {
        const char *record = records.data() + i * stride;
        Address a;
        size_t len = header_length(record);
        if (!read_header(record, stride, &a) || !(a == blocks[i]) ||
            len > static_cast<size_t>(job_.checkpoint_block))
            return fail(DESYNC_ERR_IO, "the checkpoint file " + job_.checkpoint + " is damaged: the record of block " +
                                           blocks[i].text() + " does not hold it");
        char *base = store_.receive_buffer(BLOCK_HEADER + len);
        std::memcpy(base, record, BLOCK_HEADER + len);
        Block *b = nullptr;
        if (store_.adopt(a, base, len, &b) != DESYNC_SUCCESS || !b)
            return fail(DESYNC_ERR_NOMEM, "no memory for block " + a.text());
        b->saved = 2;
        block_made(b, true);
    }
    return error_;
}

void Runtime::save_later(Block *b)
{
    const Address &a = b->addr;
    if (!checkpoint_.is_open() || b->saved || a.version() % job_.replicate != 0 || a.version() <= saved_complete_ ||
        !mine(a))
        return;
    if (b->len > static_cast<size_t>(job_.checkpoint_block)) {
        fail(DESYNC_ERR_HINT, "block " + a.text() + " has " + std::to_string(b->len) +
                                  " bytes, more than desync_checkpoint_block=" +
                                  std::to_string(job_.checkpoint_block));
        return;
    }
    b->saved = 1;
    save_due_.push_back(a);
}

bool Runtime::saved_whole(int version) const
{
    for (size_t f = 0; f < job_.files.size(); f++)
        if (leased_through_[f] < std::min(version, job_.files[f].versions - 1))
            return false; // not leased yet: whose blocks these are is not known
    long long mine_here = 0;
    for (const Lease &l : leases_->leases())
        if (l.v0 <= version && version <= l.v1 && resolve(l.node) == channel_.rank())
            mine_here += l.blocks();
    auto written = saved_count_.find(version);
    return mine_here == 0 || (written != saved_count_.end() && written->second >= mine_here);
}

int Runtime::save_progress()
{
    if (!checkpoint_.is_open())
        return DESYNC_SUCCESS;
    // A version goes into the slot of the version 2R before it, so only once the
    // version R before it is whole in the other slot: the last version a record
    // names is never overwritten.
    int r = job_.replicate;
    for (auto it = save_due_.begin(); it != save_due_.end();) {
        Block *b = store_.find(*it);
        int v = it->version();
        if (b && v >= 2 * r && saved_complete_ < v - r) {
            ++it;
            continue;
        }
        if (b) {
            MPI_Request request;
            b->pins++;
            if (checkpoint_.write(b->addr, b->base(), BLOCK_HEADER + b->len, &request) != MPI_SUCCESS)
                return fail(DESYNC_ERR_IO, "writing block " + b->addr.text() + " to the checkpoint file failed");
            save_requests_.push_back(request);
            save_blocks_.push_back(b);
        }
        it = save_due_.erase(it);
    }
    for (size_t i = 0; i < save_requests_.size();) {
        int done = 0;
        MPI_Status status;
        if (MPI_Test(&save_requests_[i], &done, &status) != MPI_SUCCESS)
            return fail(DESYNC_ERR_IO, "writing the checkpoint file failed");
        if (!done) {
            i++;
            continue;
        }
        block_saved(save_blocks_[i]);
        save_requests_.erase(save_requests_.begin() + static_cast<long>(i));
        save_blocks_.erase(save_blocks_.begin() + static_cast<long>(i));
    }
    advance_saved_through();
    // Counts are kept until the version is recorded whole: after a loss the taker's
    // written version goes back (recover.cpp) and its own blocks count again.
    for (auto it = saved_count_.begin(); it != saved_count_.end();)
        it = it->first <= saved_complete_ ? saved_count_.erase(it) : std::next(it);
    return DESYNC_SUCCESS;
}

void Runtime::block_saved(Block *b)
{
    b->pins--;
    b->saved = 2;
    saved_count_[b->addr.version()]++;
    stats_.checkpointed++;
    collect_due_ = true;
}

void Runtime::advance_saved_through()
{
    int last = job_.files.front().versions - 1;
    int next = saved_through_ < 0 ? 0 : saved_through_ + job_.replicate;
    while (next <= last && saved_whole(next)) {
        saved_through_ = next;
        next += job_.replicate;
        report_due_ = true;
    }
}

// In-flight writes waited for (the end). Blocks still due stay due: record_the_end
// writes those it may.
void Runtime::finish_saving()
{
    for (size_t i = 0; i < save_requests_.size(); i++)
        if (MPI_Wait(&save_requests_[i], MPI_STATUS_IGNORE) == MPI_SUCCESS)
            block_saved(save_blocks_[i]);
        else
            save_blocks_[i]->pins--;
    save_requests_.clear();
    save_blocks_.clear();
    advance_saved_through();
}

// Collective, at the end: the versions written since the map's last record are
// recorded too, and the blocks that waited for that record written and recorded in
// turn, so that a finished job run again resumes from its last version and neither
// slot is left holding blocks newer than its record names. The map's last record
// reaches the other processes in its messages, which may not have arrived: the
// agreement carries it, and a process that learns of it there goes round again to
// write the blocks it held back for it. Each round records at least one version
// more, or spreads the record, or ends. Skipped after a failure or a loss, where
// whose share is written is the map's business; the records then stay as the map
// left them, which a restart handles as it would a crash.
void Runtime::record_the_end(MPI_Comm comm)
{
    if (!checkpoint_.is_open())
        return;
    for (;;) {
        // A failure is fail()'s, and goes into the agreement below; what was started
        // is waited for all the same.
        save_progress();
        finish_saving();
        // {any failed, the last version written everywhere, the last recorded (the
        // map's), the oldest record a process knows of}
        int agreed[4] = {error_ != DESYNC_SUCCESS || other_failed_ || generation_ != 0, -saved_through_,
                         saved_complete_, -saved_complete_};
        if (MPI_Allreduce(MPI_IN_PLACE, agreed, 4, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS) {
            fail(DESYNC_ERR_MPI, "agreeing on the checkpoint's last version failed");
            break;
        }
        int everywhere = -agreed[1];
        bool someone_behind = -agreed[3] < agreed[2];
        saved_complete_ = agreed[2];
        if (agreed[0])
            break;
        if (everywhere <= saved_complete_) {
            if (someone_behind)
                continue; // its held-back blocks may be written now
            break;
        }
        int rc = DESYNC_SUCCESS;
        std::string why;
        if (channel_.rank() == 0)
            rc = checkpoint_.commit(everywhere, &why);
        // Nobody writes into the other slot before the record is in the file.
        MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
        if (rc != DESYNC_SUCCESS) {
            fail(DESYNC_ERR_IO, why.empty() ? "writing the checkpoint file's record failed on rank 0" : why);
            break;
        }
        saved_complete_ = everywhere;
    }
    save_due_.clear();
}

// The map: the next version every live process has written its share of is whole.
int Runtime::map_commit()
{
    if (!checkpoint_.is_open())
        return DESYNC_SUCCESS;
    int everywhere = INT_MAX;
    for (int r = 0; r < channel_.size(); r++)
        if (alive(r))
            everywhere = std::min(everywhere, map_saved_[static_cast<size_t>(r)]);
    int next = saved_complete_ < 0 ? 0 : saved_complete_ + job_.replicate;
    if (next > everywhere)
        return DESYNC_SUCCESS;
    // Every version up to `everywhere` is written; the record names the last.
    int version = next + (everywhere - next) / job_.replicate * job_.replicate;
    std::string why;
    if (checkpoint_.commit(version, &why) != DESYNC_SUCCESS)
        return fail(DESYNC_ERR_IO, why);
    saved_complete_ = version;
    map_dirty_ = true;
    return DESYNC_SUCCESS;
}

// desync_test_abort: the whole job dies, as it would if a process really died.
void Runtime::maybe_abort()
{
    if (job_.abort.rank != channel_.rank() ||
        std::none_of(own_.begin(), own_.end(), [&](const OwnLease &own) {
            return frontier_[static_cast<size_t>(own.lease)] >= job_.abort.version;
        }))
        return;
    std::fprintf(stderr, "desync_test_abort: rank %d ends the job at version %d\n", channel_.rank(),
                 job_.abort.version);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

} // namespace desync
