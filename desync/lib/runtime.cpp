// runtime.cpp - the event loop (NOTES.md 2.2), the start and the end of a job.
#include "runtime.h"

#include <algorithm>
#include <climits>

namespace desync {

Runtime::Runtime(const desynch_app *app, const Job &job) : app_(app), job_(job) {}

int Runtime::fail(int code, const std::string &message)
{
    if (error_ == DESYNC_SUCCESS) {
        error_ = code;
        error_message_ = message;
    }
    last_message_ = message;
    return code;
}

bool Runtime::mine(const Address &a) const
{
    return owner(a) == channel_.rank();
}

int Runtime::owner(const Address &a) const
{
    int l = leases_->lease_of(a);
    return l < 0 ? -1 : resolve(leases_->lease(l).node);
}

bool Runtime::made(const Address &a) const
{
    if (store_.find(a))
        return true;
    int l = leases_->lease_of(a);
    return l >= 0 && frontier_[static_cast<size_t>(l)] >= a.version();
}

const chunkdesc *Runtime::file_desc(int file)
{
    auto it = file_descs_.find(file);
    if (it != file_descs_.end())
        return &it->second.second;
    const FileShape *f = job_.file(file);
    std::vector<desynch_range> ranges = {{f->id, f->id}, {f->versions - 1, 0}};
    for (int e : f->extent)
        ranges.push_back({e - 1, 0});
    auto &entry = file_descs_[file];
    entry.first = std::move(ranges);
    entry.second = {static_cast<int>(entry.first.size()), entry.first.data()};
    return &entry.second;
}

int Runtime::run(MPI_Comm comm, desynch_stats *stats, std::string *message)
{
    double began = MPI_Wtime();
    if (channel_.open(comm) != MPI_SUCCESS) {
        *message = "MPI_Comm_dup of the job's communicator failed";
        return DESYNC_ERR_MPI;
    }
    channel_.set_block_allocator([this](size_t size) { return store_.receive_buffer(size); });
    stats_.resumed_from = -1;
    int resumed = -1; // the checkpoint's version, whose blocks are made already
    resume(comm, &resumed);
    // A resumed job begins with the period that holds that version, laid out afresh.
    int first = job_.rebalance && resumed > 0 ? resumed / job_.rebalance * job_.rebalance : 0;
    LeaseTable table(job_, period_leases(job_, channel_.size(), first, job_.layout.weights));
    leases_ = &table;
    for (const Lease &l : table.leases())
        frontier_.push_back(std::max(l.v0 - 1, std::min(resumed, l.v1)));
    map_frontier_ = frontier_;
    for (const FileShape &f : job_.files)
        leased_through_.push_back(period_end(job_, f, first));
    // The map's: the next period, and the figures that will lay it out.
    map_next_v0_ = job_.rebalance ? first + job_.rebalance : INT_MAX;
    size_t processes = static_cast<size_t>(channel_.size());
    map_weights_ = job_.layout.weights.empty() ? std::vector<double>(processes, 1.0) : job_.layout.weights;
    map_computed_.assign(processes, 0);
    map_busy_.assign(processes, 0);
    map_rate_.assign(processes, 0);
    map_charged_.assign(processes, 0);
    map_charge_began_ = MPI_Wtime();
    charged_through_.assign(processes, 0);
    charged_.assign(processes, 0);
    map_done_.assign(processes, 0);
    map_heard_.assign(processes, MPI_Wtime());
    map_replica_.assign(processes, -1);
    map_saved_.assign(processes, resumed);
    successor_.assign(processes, -1);
    pinned_from_ = replicating() ? -1 : INT_MAX;
    for (size_t l = 0; l < table.leases().size(); l++)
        if (table.lease(static_cast<int>(l)).node == channel_.rank()) {
            own_.push_back({static_cast<int>(l), {}});
            stats_.owned += table.lease(static_cast<int>(l)).blocks();
            if (fill_slots(own_.back()) != DESYNC_SUCCESS)
                break;
        }

    if (checkpoint_.is_open())
        read_resumed(resumed); // collective: every rank, even one that failed
    if (error_ == DESYNC_SUCCESS)
        loop();
    if (error_ != DESYNC_SUCCESS)
        end_everywhere();
    finish_saving();
    // The job is over: late messages are dropped.
    int rc = channel_.drain([this](const Message &m) {
        if (m.block)
            store_.recycle(m.block, m.block_size - BLOCK_HEADER);
    });
    if (rc != MPI_SUCCESS)
        fail(DESYNC_ERR_MPI, "exchanging the final message counts failed");
    record_the_end(comm);
    if (checkpoint_.close() != MPI_SUCCESS)
        fail(DESYNC_ERR_IO, "closing the checkpoint file failed");
    if (error_ == DESYNC_SUCCESS && !other_failed_)
        report_results();

    // Every rank learns whether any failed.
    int mine_failed = error_ != DESYNC_SUCCESS || other_failed_, any = mine_failed;
    MPI_Allreduce(&mine_failed, &any, 1, MPI_INT, MPI_MAX, comm);
    stats_.seconds = MPI_Wtime() - began;
    stats_.peak_resident = store_.peak();
    stats_.resident_at_end = store_.resident();
    stats_.duplicates = store_.duplicates();
    stats_.lost = generation_;
    if (stats)
        *stats = stats_;
    leases_ = nullptr;
    if (error_ != DESYNC_SUCCESS) {
        *message = error_message_;
        return error_;
    }
    if (any) {
        *message = "the job ended because another rank failed (its message says why)";
        return DESYNC_ERR_OTHER_RANK;
    }
    message->clear();
    return DESYNC_SUCCESS;
}

// Computes one block when one is ready, then serves what has arrived; sleeps 50 us
// when neither happened (polite waiting: never a blocking receive or a spin).
int Runtime::loop()
{
    while (!ended_ && error_ == DESYNC_SUCCESS && !other_failed_) {
        maybe_stop();
        maybe_abort();
        if (silent_)
            return silent_loop();
        bool computed = false;
        if (compute_one(&computed) != DESYNC_SUCCESS)
            break;
        bool idle = !computed;
        for (int drained = 0; drained < 64; drained++) { // then compute again
            Message m;
            bool got = false;
            if (channel_.poll(&m, &got) != MPI_SUCCESS)
                return fail(DESYNC_ERR_MPI, "receiving a message failed");
            if (!got) {
                map_drained_at_ = MPI_Wtime();
                break;
            }
            idle = false;
            if (handle(m) != DESYNC_SUCCESS)
                return error_;
        }
        if (channel_.progress() != MPI_SUCCESS)
            return fail(DESYNC_ERR_MPI, "completing a send failed");
        if (save_progress() != DESYNC_SUCCESS)
            break;
        if (collect_due_)
            collect();
        if (send_report() != DESYNC_SUCCESS || map_progress() != DESYNC_SUCCESS)
            break;
        if (!done_sent_ && all_done()) {
            done_sent_ = true;
            report_due_ = true;
            last_report_ = 0; // the final frontiers go now, before the done
            if (send_report() != DESYNC_SUCCESS)
                break;
            std::vector<char> generation;
            put_ints(&generation, &generation_, 1);
            if (channel_.rank() == 0 ? map_done(0, generation_) != DESYNC_SUCCESS
                                     : channel_.send(0, TAG_DONE, std::move(generation)) != MPI_SUCCESS)
                return fail(DESYNC_ERR_MPI, "sending the done message failed");
        }
        if (idle)
            Channel::pause();
    }
    return error_;
}

int Runtime::handle(const Message &m)
{
    Address a;
    size_t offset = 0;
    switch (m.tag) {
    case TAG_REQUEST:
    case TAG_FREED:
        if (!get_ints(m.bytes, &offset, &a.n, 1) || a.n < 2 || a.n > DESYNCH_MAX_DIMS ||
            !get_ints(m.bytes, &offset, a.d, static_cast<size_t>(a.n)))
            return fail(DESYNC_ERR_MPI, "a malformed block address arrived from rank " + std::to_string(m.source));
        return m.tag == TAG_REQUEST ? on_request(m.source, a) : on_freed(a);
    case TAG_BLOCK:
        return on_block(m);
    case TAG_REPORT: {
        if (!alive(m.source))
            return DESYNC_SUCCESS; // declared lost: what it says no longer counts
        std::vector<int> report(m.bytes.size() / sizeof(int));
        get_ints(m.bytes, &offset, report.data(), report.size());
        return map_report(m.source, report);
    }
    case TAG_LEASES: {
        std::vector<Lease> leases;
        if (!read_leases(m.bytes, &leases))
            return fail(DESYNC_ERR_MPI, "malformed leases arrived from the map");
        return add_leases(leases);
    }
    case TAG_FRONTIERS: { // the replica version everyone holds, the checkpoint's, the
                          // charge window, then every lease's frontier (map_progress)
        std::vector<int> table(m.bytes.size() / sizeof(int));
        get_ints(m.bytes, &offset, table.data(), table.size());
        if (table.size() < FRONTIER_HEADER)
            return fail(DESYNC_ERR_MPI, "a malformed frontier table arrived from the map");
        pinned_from_ = std::max(pinned_from_, table[0]);
        if (job_.late_records != channel_.rank())
            saved_complete_ = std::max(saved_complete_, table[1]);
        if (table[2] > charge_window_)
            begin_charge_window(table[2]);
        for (size_t l = FRONTIER_HEADER; l < table.size() && l - FRONTIER_HEADER < frontier_.size(); l++)
            frontier_[l - FRONTIER_HEADER] = std::max(frontier_[l - FRONTIER_HEADER], table[l]);
        collect_due_ = true;
        return DESYNC_SUCCESS;
    }
    case TAG_LOST: {
        int lost[4];
        if (!get_ints(m.bytes, &offset, lost, 4))
            return fail(DESYNC_ERR_MPI, "a malformed loss notice arrived from the map");
        return on_lost(lost[0], lost[1], lost[2], lost[3]);
    }
    case TAG_DONE: {
        int generation = -1;
        if (!get_ints(m.bytes, &offset, &generation, 1))
            return fail(DESYNC_ERR_MPI, "a malformed done message arrived from rank " + std::to_string(m.source));
        return map_done(m.source, generation);
    }
    case TAG_END:
        ended_ = true;
        return DESYNC_SUCCESS;
    case TAG_ABORT:
        other_failed_ = true;
        return DESYNC_SUCCESS;
    default:
        return fail(DESYNC_ERR_MPI, "a message with an unknown tag arrived from rank " + std::to_string(m.source));
    }
}

void Runtime::end_everywhere()
{
    if (other_failed_)
        return; // the one that failed has told everyone
    int code = error_;
    for (int r = 0; r < channel_.size(); r++)
        if (r != channel_.rank()) {
            std::vector<char> bytes;
            put_ints(&bytes, &code, 1);
            channel_.send(r, TAG_ABORT, std::move(bytes));
        }
}

// appResult for this process's blocks of every file's last version, in address order.
void Runtime::report_results()
{
    if (!app_->appResult)
        return;
    std::vector<const Block *> last;
    store_.for_each([&](const Block *b) {
        const FileShape *f = job_.file(b->addr.file());
        if (b->addr.version() == f->versions - 1 && mine(b->addr))
            last.push_back(b);
    });
    std::sort(last.begin(), last.end(), [](const Block *x, const Block *y) {
        return std::lexicographical_compare(x->addr.d, x->addr.d + x->addr.n, y->addr.d, y->addr.d + y->addr.n);
    });
    for (const Block *b : last) {
        Address a = b->addr;
        blockaddr ba = {a.n, a.d};
        app_->appResult(&ba, b->data, b->len);
    }
}

} // namespace desync
