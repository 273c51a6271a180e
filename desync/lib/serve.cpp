// serve.cpp - the block server's side of the loop (NOTES.md 2.4): requests answered
// at once (a hit) or when the block is made (a miss), new blocks pushed to the
// owners of their forward dependencies (prefetch), and "freed" answered for a block
// that exists no more, so that the asker makes it again instead of waiting forever.
#include "runtime.h"

#include <algorithm>

namespace desync {

namespace {
std::vector<char> address_bytes(const Address &a)
{
    std::vector<char> bytes;
    put_ints(&bytes, &a.n, 1);
    put_ints(&bytes, a.d, static_cast<size_t>(a.n));
    return bytes;
}
} // namespace

int Runtime::send_block(int dest, Block *b)
{
    if (channel_.send_block(dest, b->base(), BLOCK_HEADER + b->len, &b->pins) != MPI_SUCCESS)
        return fail(DESYNC_ERR_MPI, "sending block " + b->addr.text() + " failed");
    return DESYNC_SUCCESS;
}

int Runtime::request(const Address &a)
{
    int to = owner(a);
    if (to < 0 || to == channel_.rank())
        return fail(DESYNC_ERR_ADDRESS, "no other process owns block " + a.text());
    requested_.insert(a);
    stats_.requests++;
    if (channel_.send(to, TAG_REQUEST, address_bytes(a)) != MPI_SUCCESS)
        return fail(DESYNC_ERR_MPI, "requesting block " + a.text() + " failed");
    return DESYNC_SUCCESS;
}

// To the owners of the block's forward dependencies and to those waiting for it.
int Runtime::push(Block *b)
{
    std::vector<int> to;
    if (b->forward_known)
        for (const Address &f : b->forward) {
            int o = owner(f);
            if (o >= 0 && o != channel_.rank() && std::find(to.begin(), to.end(), o) == to.end())
                to.push_back(o);
        }
    stats_.pushed += static_cast<long long>(to.size());
    add_replica_target(b, &to);
    for (int r : answer_waiting(b->addr))
        if (std::find(to.begin(), to.end(), r) == to.end())
            to.push_back(r);
    for (int r : to)
        if (send_block(r, b) != DESYNC_SUCCESS)
            return error_;
    return DESYNC_SUCCESS;
}

// The misses rule charges this process, per asker, the time it spent inside
// appCompute while the asker waited (NOTES.md 2.7): a process that waits on a slow
// neighbour is idle then, so the wait it causes its own askers costs it nothing, and
// only the slow one is charged. A wait is charged up to now, when it is answered and
// before each report (one still waiting at the end of a window is charged to it).
void Runtime::charge(const Waiter &w)
{
    size_t r = static_cast<size_t>(w.rank);
    double from = std::max(w.busy, charged_through_[r]);
    if (busy_ > from) {
        charged_[r] += busy_ - from;
        charged_most_ = std::max(charged_most_, charged_[r]);
    }
    charged_through_[r] = std::max(charged_through_[r], busy_);
}

void Runtime::charge_waiting()
{
    if (!charging())
        return; // a walk of every waiting request at every report, for nothing
    for (const auto &entry : waiting_)
        for (const Waiter &w : entry.second)
            charge(w);
}

// Those waiting for block a, now made, charged.
std::vector<int> Runtime::answer_waiting(const Address &a)
{
    std::vector<int> ranks;
    auto waiting = waiting_.find(a);
    if (waiting == waiting_.end())
        return ranks;
    for (const Waiter &w : waiting->second) {
        charge(w);
        ranks.push_back(w.rank);
    }
    waiting_.erase(waiting);
    return ranks;
}

// The map began a new charge window (map_weights): every asker's charge starts again.
void Runtime::begin_charge_window(int window)
{
    charge_window_ = window;
    std::fill(charged_.begin(), charged_.end(), 0);
    charged_most_ = 0;
    if (channel_.rank() == 0) {
        std::fill(map_charged_.begin(), map_charged_.end(), 0);
        map_charge_blocks_ = 0;
        map_charge_began_ = MPI_Wtime();
    }
}

int Runtime::on_request(int source, const Address &a)
{
    if (!leases_->valid(a))
        return fail(DESYNC_ERR_MPI, "rank " + std::to_string(source) + " asked for " + a.text() +
                                        ", which is no block of the job");
    if (Block *b = store_.find(a)) {
        stats_.hits++;
        return send_block(source, b);
    }
    bool making = std::any_of(foreign_.begin(), foreign_.end(), [&](const Foreign &f) { return f.addr == a; });
    // A block whose lease has not reached this process yet (the asker got the map's
    // new period first) is this process's to make: a miss, not "freed".
    if ((mine(a) && !made(a)) || making || owner(a) < 0) {
        stats_.misses++; // answered when made (push)
        waiting_[a].push_back({source, busy_});
        return DESYNC_SUCCESS;
    }
    if (channel_.send(source, TAG_FREED, address_bytes(a)) != MPI_SUCCESS)
        return fail(DESYNC_ERR_MPI, "answering a request failed");
    return DESYNC_SUCCESS;
}

int Runtime::on_block(const Message &m)
{
    Address a;
    if (!read_header(m.block, m.block_size, &a) || !leases_->valid(a)) {
        store_.recycle(m.block, m.block_size < BLOCK_HEADER ? 0 : m.block_size - BLOCK_HEADER);
        return fail(DESYNC_ERR_MPI, "a malformed block arrived from rank " + std::to_string(m.source));
    }
    requested_.erase(a);
    Block *b = nullptr;
    int rc = store_.adopt(a, m.block, m.block_size - BLOCK_HEADER, &b);
    if (rc == DESYNC_ERR_CONFLICT)
        return fail(rc, "block " + a.text() + " arrived from rank " + std::to_string(m.source) +
                            " with bytes other than those made here: the computation is not deterministic");
    if (rc != DESYNC_SUCCESS)
        return fail(rc, "no memory for block " + a.text());
    if (b) {
        block_made(b, false);
        // Asked of this process, which took over its chunk or was making it again.
        for (int r : answer_waiting(a))
            if (send_block(r, b) != DESYNC_SUCCESS)
                return error_;
    }
    if (Block *held = store_.find(a))
        on_replica(m.source, held);
    return error_;
}

int Runtime::on_freed(const Address &a)
{
    // Made again here only if a block still to be made needs it (ready() decides): the
    // answer may come after what asked for it was computed from a pushed copy.
    requested_.erase(a);
    if (!store_.find(a)) {
        freed_elsewhere_.insert(a);
        scan_due_ = true;
    }
    return DESYNC_SUCCESS;
}

// A read of a block that is not here: ask its owner, then serve and receive (never
// compute: the caller is inside appCompute) until it comes.
int Runtime::pump_until_present(const Address &a)
{
    if (!requested_.count(a) && request(a) != DESYNC_SUCCESS)
        return error_;
    while (!store_.find(a)) {
        if (error_ != DESYNC_SUCCESS || other_failed_ || ended_)
            return error_ != DESYNC_SUCCESS ? error_ : DESYNC_ERR_OTHER_RANK;
        if (!requested_.count(a)) // answered "freed": it would have to be made first
            return DESYNC_ERR_NOT_MADE;
        Message m;
        bool got = false;
        if (channel_.poll(&m, &got) != MPI_SUCCESS)
            return fail(DESYNC_ERR_MPI, "receiving a message failed");
        if (got && handle(m) != DESYNC_SUCCESS)
            return error_;
        if (channel_.progress() != MPI_SUCCESS)
            return fail(DESYNC_ERR_MPI, "completing a send failed");
        if (!got)
            Channel::pause();
    }
    return DESYNC_SUCCESS;
}

} // namespace desync
