// recover.cpp - crash recovery (NOTES.md 2.6). Every desync_replicate versions each
// process's blocks also go to its buddy, the next live process. The map declares a
// process lost when it has not reported for desync_loss_timeout seconds; the buddy,
// which holds its replica, takes its chunks over and makes them again from there.
// Correctness never rests on replicas: a block that is nowhere is made again from
// its inputs, recursively (the "freed" rule of NOTES.md 2.4). Replicas, and the
// pinning of every block from the last replica that is complete everywhere, only
// bound how far back that goes. A test stops a process logically
// (desync_test_stop): it drops its blocks and goes silent, or pauses and comes back.
#include "runtime.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <ctime>

namespace desync {

int Runtime::resolve(int node) const
{
    while (node >= 0 && successor_[static_cast<size_t>(node)] >= 0)
        node = successor_[static_cast<size_t>(node)];
    return node;
}

int Runtime::next_alive(int node) const
{
    int size = channel_.size();
    for (int k = 1; k < size; k++)
        if (alive((node + k) % size))
            return (node + k) % size;
    return node;
}

int Runtime::previous_alive(int node) const
{
    int size = channel_.size();
    for (int k = 1; k < size; k++)
        if (alive((node - k + size) % size))
            return (node - k + size) % size;
    return node;
}

bool Runtime::replicating() const
{
    return job_.replicate > 0 && channel_.size() > 1;
}

// A push's destinations: this process's block of a replicated version goes to the
// buddy as well (once: the buddy may already be among them).
void Runtime::add_replica_target(const Block *b, std::vector<int> *to)
{
    if (!replicating() || b->addr.version() % job_.replicate != 0 || !mine(b->addr))
        return;
    int buddy = next_alive(channel_.rank());
    if (buddy == channel_.rank())
        return;
    stats_.replicated++;
    if (std::find(to->begin(), to->end(), buddy) == to->end())
        to->push_back(buddy);
}

// A block that arrived from `source`: a replica if source is the process whose buddy
// this one is and the block is source's own of a replicated version. When every
// block of source's chunks of that version is here, the replica is complete.
void Runtime::on_replica(int source, Block *b)
{
    const Address &a = b->addr;
    if (!replicating() || b->replica || a.version() % job_.replicate != 0 ||
        source != previous_alive(channel_.rank()) || owner(a) != source)
        return;
    b->replica = true;
    long long key = static_cast<long long>(source) << 32 | a.version();
    long long have = ++replica_count_[key];
    if (a.version() <= replica_complete_)
        return;
    long long expected = 0;
    for (const Lease &l : leases_->leases())
        if (resolve(l.node) == source && l.v0 <= a.version() && a.version() <= l.v1)
            expected += l.blocks();
    if (have < expected)
        return;
    replica_complete_ = a.version();
    report_due_ = true;
    for (auto it = replica_count_.begin(); it != replica_count_.end();)
        it = static_cast<int>(it->first & 0xffffffff) <= replica_complete_ ? replica_count_.erase(it) : std::next(it);
}

// The map's notice: `lost` is lost, `taker` (its buddy) makes its chunks from the
// version after `restart`, the replica the taker holds; `lost_saved` is the last
// checkpoint version the lost process said it had written its share of.
int Runtime::on_lost(int lost, int taker, int restart, int lost_saved)
{
    int size = channel_.size();
    if (lost <= 0 || lost >= size || taker < 0 || taker >= size || lost == taker || !alive(lost) || !alive(taker))
        return fail(DESYNC_ERR_MPI, "a loss notice for no live process arrived from the map");
    std::vector<int> held; // the leases the lost process held, its own and those it had taken
    for (size_t l = 0; l < leases_->leases().size(); l++)
        if (resolve(leases_->lease(static_cast<int>(l)).node) == lost)
            held.push_back(static_cast<int>(l));
    int old_buddy = next_alive(channel_.rank());
    successor_[static_cast<size_t>(lost)] = taker;
    generation_++;
    done_sent_ = false; // the map counts only dones of the latest generation
    if (lost == channel_.rank()) {
        silent_ = true; // wrongly declared lost: it stops at the loop's next turn
        return DESYNC_SUCCESS;
    }
    // The lost chunks are made up to the replica's version, whatever the frontiers
    // said (the map's may lag behind the replica): the taker goes on from there, and
    // a block below it that is nowhere is made again from its inputs. What was asked
    // of the lost process is asked again, of the taker.
    for (int l : held) {
        const Lease &lease = leases_->lease(l);
        int now_made = std::max(lease.v0 - 1, std::min(restart, lease.v1));
        frontier_[static_cast<size_t>(l)] = now_made;
        map_frontier_[static_cast<size_t>(l)] = now_made;
    }
    std::vector<Address> ask_again;
    for (auto it = requested_.begin(); it != requested_.end();)
        if (owner(*it) == taker) {
            ask_again.push_back(*it);
            it = requested_.erase(it);
        } else {
            ++it;
        }
    for (const Address &a : ask_again)
        if (taker != channel_.rank() && request(a) != DESYNC_SUCCESS)
            return error_;
    if (taker == channel_.rank()) {
        // The lost share of later checkpoint versions is the taker's to write now:
        // they are not written by this process until it has (checkpoint_role.cpp).
        saved_through_ = std::min(saved_through_, lost_saved);
        if (take_over(held) != DESYNC_SUCCESS)
            return error_;
    }
    // A new buddy has none of this process's replicas: it gets those still kept.
    int buddy = next_alive(channel_.rank());
    if (replicating() && buddy != old_buddy && buddy != channel_.rank()) {
        std::vector<Block *> kept;
        store_.for_each([&](Block *b) {
            if (b->addr.version() % job_.replicate == 0 && b->addr.version() >= pinned_from_ && mine(b->addr))
                kept.push_back(b);
        });
        for (Block *b : kept) {
            stats_.replicated++;
            if (send_block(buddy, b) != DESYNC_SUCCESS)
                return error_;
        }
    }
    scan_due_ = collect_due_ = report_due_ = true;
    return DESYNC_SUCCESS;
}

// The lost process's leases become this process's, from their frontier on; blocks
// of them already here (the replica, pushed copies) count as made.
int Runtime::take_over(const std::vector<int> &leases)
{
    for (int l : leases) {
        const Lease &lease = leases_->lease(l);
        if (frontier_[static_cast<size_t>(l)] >= lease.v1)
            continue; // all made: nothing to do but answer for it
        stats_.taken_over += lease.blocks();
        own_.push_back({l, {}});
        if (fill_slots(own_.back()) != DESYNC_SUCCESS)
            return error_;
        advance(own_.back());
    }
    // The lost process's share of checkpoint versions not yet whole: from the replicas.
    std::vector<Block *> now_mine;
    store_.for_each([&](Block *b) {
        if (mine(b->addr))
            now_mine.push_back(b);
    });
    for (Block *b : now_mine)
        save_later(b);
    return error_;
}

// desync_test_stop: once one of this process's chunks reaches the version, it goes
// silent (its blocks dropped), or pauses without a word and then goes on. The
// version is before every file's last (job.cpp), so the process is not done yet.
void Runtime::maybe_stop()
{
    if (stopped_ || job_.stop.rank != channel_.rank() ||
        std::none_of(own_.begin(), own_.end(), [&](const OwnLease &own) {
            return frontier_[static_cast<size_t>(own.lease)] >= job_.stop.version;
        }))
        return;
    stopped_ = true;
    if (job_.stop.pause < 0) {
        silent_ = true;
        return;
    }
    timespec pause = {static_cast<time_t>(job_.stop.pause),
                      static_cast<long>((job_.stop.pause - static_cast<double>(static_cast<time_t>(job_.stop.pause))) * 1e9)};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
    }
}

// A silent process holds nothing and does nothing: its chunks are another's.
void Runtime::drop_everything()
{
    own_.clear();
    foreign_.clear();
    recompute_.clear();
    waiting_.clear();
    requested_.clear();
    save_due_.clear(); // blocks in flight to the checkpoint stay pinned until the end
    std::vector<Block *> gone;
    store_.for_each([&](Block *b) {
        if (b->refs == 0 && b->pins == 0)
            gone.push_back(b);
    });
    for (Block *b : gone)
        store_.erase(b);
}

// Until the end: every message is received and dropped but the end and an abort
// (the final count exchange needs this process; nothing else does).
int Runtime::silent_loop()
{
    drop_everything();
    while (!ended_ && error_ == DESYNC_SUCCESS && !other_failed_) {
        Message m;
        bool got = false;
        if (channel_.poll(&m, &got) != MPI_SUCCESS)
            return fail(DESYNC_ERR_MPI, "receiving a message failed");
        if (got && m.block)
            store_.recycle(m.block, m.block_size - BLOCK_HEADER);
        else if (got && (m.tag == TAG_END || m.tag == TAG_ABORT))
            handle(m);
        if (channel_.progress() != MPI_SUCCESS)
            return fail(DESYNC_ERR_MPI, "completing a send failed");
        if (!got)
            Channel::pause();
    }
    return error_;
}

// The map: a live process (not rank 0, the map itself) silent for longer than the
// timeout is lost. Silence is measured up to when the map last found no message
// waiting, so that a map busy computing does not take its own delay for theirs.
int Runtime::map_check_losses()
{
    if (!replicating())
        return DESYNC_SUCCESS;
    for (int r = 1; r < channel_.size(); r++)
        if (alive(r) && map_drained_at_ - map_heard_[static_cast<size_t>(r)] > job_.loss_timeout &&
            map_declare_lost(r) != DESYNC_SUCCESS)
            return error_;
    return DESYNC_SUCCESS;
}

int Runtime::map_declare_lost(int lost)
{
    int taker = next_alive(lost);
    if (taker == lost)
        return DESYNC_SUCCESS;
    int restart = map_replica_[static_cast<size_t>(taker)];
    map_generation_++;
    std::fill(map_done_.begin(), map_done_.end(), 0); // everyone says done again
    // The lost process's share of the checkpoint versions after the last it wrote is
    // now the taker's to write: until the taker says so in this generation, those
    // versions are not whole. (Without this, the taker's written version from before
    // the loss let the map record a version the lost share of which nobody wrote.)
    int lost_saved = map_saved_[static_cast<size_t>(lost)];
    map_saved_[static_cast<size_t>(taker)] = std::min(map_saved_[static_cast<size_t>(taker)], lost_saved);
    int notice[4] = {lost, taker, restart, lost_saved};
    std::vector<char> bytes;
    put_ints(&bytes, notice, 4);
    for (int r = 1; r < channel_.size(); r++)
        if (channel_.send(r, TAG_LOST, bytes) != MPI_SUCCESS)
            return fail(DESYNC_ERR_MPI, "sending a loss notice failed");
    map_dirty_ = true;
    return on_lost(lost, taker, restart, lost_saved);
}

} // namespace desync
