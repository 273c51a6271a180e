// map_role.cpp - the map, a role of rank 0 (NOTES.md 2.2): it gathers every
// process's lease frontiers and sends the table back (the garbage collector's
// knowledge of what exists elsewhere); with desync_rebalance it lays out and grants
// each next period of leases by recursive bisection, weighed by what the processes
// reported (NOTES.md 2.7); and it ends the job when every process has made its
// blocks of every last version.
#include "runtime.h"

#include <algorithm>
#include <climits>

namespace desync {

namespace {
const double REPORT_INTERVAL = 0.005; // seconds between frontier reports, and broadcasts
const double HEARTBEAT = 0.1;         // the longest silence between reports when replicating
// The least a charge window's misses multiply a weight by: a process charged all the
// window (an asker always waiting on it) still keeps a share, and shows its speed by it.
const double MISSES_FLOOR = 0.05;
} // namespace

int Runtime::send_report()
{
    double now = MPI_Wtime();
    // With replication the map also hears that this process lives (NOTES.md 2.6).
    double heartbeat = std::min(HEARTBEAT, job_.loss_timeout / 4);
    bool beat = replicating() && now - last_report_ >= heartbeat;
    if ((!report_due_ && !beat) || now - last_report_ < REPORT_INTERVAL)
        return DESYNC_SUCCESS;
    report_due_ = false;
    last_report_ = now;
    // Blocks computed and microseconds inside appCompute since the last report, the
    // misses' charge in microseconds (serve.cpp, charge) and the charge window it is
    // of, the replica version held, the checkpoint version written, the generation
    // (losses seen); then (lease, frontier) pairs.
    charge_waiting();
    std::vector<int> report = {static_cast<int>(stats_.computed - reported_computed_),
                               static_cast<int>((busy_ - reported_busy_) * 1e6),
                               static_cast<int>(std::min(charged_most_ * 1e6, static_cast<double>(INT_MAX))),
                               charge_window_,
                               replica_complete_,
                               saved_through_,
                               generation_};
    reported_computed_ = stats_.computed;
    reported_busy_ = busy_;
    for (const OwnLease &own : own_) {
        report.push_back(own.lease);
        report.push_back(frontier_[static_cast<size_t>(own.lease)]);
    }
    if (channel_.rank() == 0)
        return map_report(0, report);
    std::vector<char> bytes;
    put_ints(&bytes, report.data(), report.size());
    if (channel_.send(0, TAG_REPORT, std::move(bytes)) != MPI_SUCCESS)
        return fail(DESYNC_ERR_MPI, "sending a frontier report failed");
    return DESYNC_SUCCESS;
}

int Runtime::map_report(int source, const std::vector<int> &report)
{
    if (report.size() < REPORT_HEADER || (report.size() - REPORT_HEADER) % 2 != 0)
        return fail(DESYNC_ERR_MPI, "a malformed report arrived from rank " + std::to_string(source));
    size_t s = static_cast<size_t>(source);
    map_computed_[s] += report[0];
    map_busy_[s] += report[1] * 1e-6;
    // A total over the charge window: the latest holds. One of the window before
    // would be charged to one just begun.
    map_charge_blocks_ += report[0];
    if (report[3] == charge_window_)
        map_charged_[s] = report[2] * 1e-6;
    map_replica_[s] = std::max(map_replica_[s], report[4]);
    if (report[6] == map_generation_) // sent before a loss, it may not cover the lost share
        map_saved_[s] = std::max(map_saved_[s], report[5]);
    map_heard_[s] = MPI_Wtime();
    // Near the end of the last period granted: a lease with something made in it
    // (frontier >= v0) whose frontier is within window + 1 versions of that end, so
    // that no process runs out of leases. A new lease's frontier, v0 - 1, is no
    // progress: counted, it granted every period at once when the periods were as
    // short as the window (desync_rebalance <= window + 1), each new period's first
    // report granting the next, all laid out before any rate was measured, and every
    // process scanning slots of all of them for a ready block (100 times the CPU).
    bool near_end = false;
    int last_granted = map_next_v0_ - 1;
    for (size_t i = REPORT_HEADER; i + 1 < report.size(); i += 2) {
        size_t l = static_cast<size_t>(report[i]);
        if (l >= map_frontier_.size())
            return fail(DESYNC_ERR_MPI, "a frontier report names no lease of the job");
        map_frontier_[l] = std::max(map_frontier_[l], report[i + 1]);
        frontier_[l] = std::max(frontier_[l], report[i + 1]); // rank 0's own view
        const Lease &lease = leases_->lease(static_cast<int>(l));
        near_end = near_end || (report[i + 1] >= lease.v0 && report[i + 1] >= last_granted - job_.window - 1);
    }
    map_dirty_ = true;
    collect_due_ = true;
    return near_end ? map_grant() : DESYNC_SUCCESS;
}

// The weights of the next period's layout (NOTES.md 2.7). Misses (the paper's
// signal, charged with time): a process that kept an asker waiting for a fraction f
// of the charge window while it computed is slower than its share by that much, and
// its weight is multiplied by 1 - f (at least MISSES_FLOOR), window after window.
// Throughput: blocks per second inside appCompute (throughput_weights).
std::vector<double> Runtime::map_weights()
{
    std::vector<double> w = job_.balance == Job::Throughput ? throughput_weights() : map_weights_;
    bool charge = charging() && charge_window_full();
    double window = MPI_Wtime() - map_charge_began_;
    double sum = 0;
    for (size_t i = 0; i < w.size(); i++) {
        if (!alive(static_cast<int>(i))) {
            w[i] = 0; // laid out over the live processes only (map_grant)
            continue;
        }
        if (charge)
            w[i] *= std::max(MISSES_FLOOR, 1.0 - map_charged_[i] / window);
        sum += w[i];
    }
    if (charge)
        begin_charge_window(charge_window_ + 1);
    double live = static_cast<double>(std::count(successor_.begin(), successor_.end(), -1));
    for (double &x : w)
        x = x / sum * live;
    return w;
}

// Whether the charge window is long enough to weigh by: two versions of every file
// made in it. The map grants a period when the processes ahead near its end, so
// periods of a version or two are granted a few milliseconds apart, and one wait
// then made a process's whole charge (rechunking every 2 versions, the chain's
// fast end process was charged half of a 10 ms period and starved).
bool Runtime::charge_window_full() const
{
    long long blocks = 0;
    for (const FileShape &f : job_.files)
        blocks += f.blocks_per_version();
    return map_charge_blocks_ >= 2.0 * static_cast<double>(blocks);
}

// Each process's rate, blocks per second inside appCompute this period, when it has
// enough to measure: at least a quarter of the median time inside appCompute. At the
// first grant a slow process may have made only blocks that cost nothing (the
// Jacobi's version 0): measured, it came out 13 times as fast as the others and got
// their work, in 3 runs of 5 (lag4: 21 s instead of 4.7). A process without a rate
// this period keeps its last one; before it has any, its weight counts at the
// measured processes' mean rate. (Mixing normalised weights with rates in blocks per
// second, as before, was as wrong.)
std::vector<double> Runtime::throughput_weights()
{
    std::vector<double> busy;
    for (size_t i = 0; i < map_busy_.size(); i++)
        if (alive(static_cast<int>(i)))
            busy.push_back(map_busy_[i]);
    std::nth_element(busy.begin(), busy.begin() + static_cast<long>(busy.size() / 2), busy.end());
    double enough = busy.empty() ? 0 : busy[busy.size() / 2] / 4;
    double rates = 0, measured = 0;
    for (size_t i = 0; i < map_rate_.size(); i++) {
        if (alive(static_cast<int>(i)) && map_computed_[i] > 0 && map_busy_[i] > 0 && map_busy_[i] >= enough)
            map_rate_[i] = map_computed_[i] / map_busy_[i];
        if (alive(static_cast<int>(i)) && map_rate_[i] > 0) {
            rates += map_rate_[i];
            measured++;
        }
    }
    std::vector<double> w(map_rate_.size());
    for (size_t i = 0; i < w.size(); i++)
        w[i] = map_rate_[i] > 0 ? map_rate_[i] : measured > 0 ? map_weights_[i] * rates / measured : map_weights_[i];
    return w;
}

// Lays out and grants the period that begins at map_next_v0_, to every process.
int Runtime::map_grant()
{
    bool any = false;
    for (const FileShape &f : job_.files)
        any = any || map_next_v0_ < f.versions;
    if (!any)
        return DESYNC_SUCCESS;
    map_weights_ = map_weights();
    // Bisection over the live processes, whose weights these are; then their ranks.
    std::vector<int> live;
    std::vector<double> live_weights;
    for (int r = 0; r < channel_.size(); r++)
        if (alive(r)) {
            live.push_back(r);
            live_weights.push_back(map_weights_[static_cast<size_t>(r)]);
        }
    std::vector<Lease> leases = period_leases(job_, static_cast<int>(live.size()), map_next_v0_, live_weights);
    for (Lease &l : leases)
        l.node = live[static_cast<size_t>(l.node)];
    map_next_v0_ += job_.rebalance;
    std::fill(map_computed_.begin(), map_computed_.end(), 0);
    std::fill(map_busy_.begin(), map_busy_.end(), 0);
    std::vector<char> bytes = lease_bytes(leases);
    for (int r = 1; r < channel_.size(); r++)
        if (channel_.send(r, TAG_LEASES, bytes) != MPI_SUCCESS)
            return fail(DESYNC_ERR_MPI, "sending the next period's leases failed");
    return add_leases(leases);
}

int Runtime::map_progress()
{
    if (channel_.rank() != 0)
        return DESYNC_SUCCESS;
    if (map_check_losses() != DESYNC_SUCCESS || map_commit() != DESYNC_SUCCESS)
        return error_;
    if (!map_dirty_ || MPI_Wtime() - map_last_broadcast_ < REPORT_INTERVAL)
        return DESYNC_SUCCESS;
    map_dirty_ = false;
    map_last_broadcast_ = MPI_Wtime();
    // The replica version every live process holds of its predecessor: blocks of it
    // and later are what a re-execution may need (NOTES.md 2.6). Never lowered.
    if (replicating()) {
        int everywhere = INT_MAX;
        for (int r = 0; r < channel_.size(); r++)
            if (alive(r) && previous_alive(r) != r)
                everywhere = std::min(everywhere, map_replica_[static_cast<size_t>(r)]);
        pinned_from_ = std::max(pinned_from_, everywhere); // INT_MAX: one process left, none to lose
    }
    for (int r = 1; r < channel_.size(); r++) {
        std::vector<char> bytes;
        put_ints(&bytes, &pinned_from_, 1);
        put_ints(&bytes, &saved_complete_, 1);
        put_ints(&bytes, &charge_window_, 1);
        put_ints(&bytes, map_frontier_.data(), map_frontier_.size());
        if (channel_.send(r, TAG_FRONTIERS, std::move(bytes)) != MPI_SUCCESS)
            return fail(DESYNC_ERR_MPI, "sending the frontier table failed");
    }
    return DESYNC_SUCCESS;
}

// Done in the current generation: a loss since may have given it more to do.
int Runtime::map_done(int source, int generation)
{
    if (!alive(source) || generation != map_generation_)
        return DESYNC_SUCCESS;
    map_done_[static_cast<size_t>(source)] = 1;
    for (int r = 0; r < channel_.size(); r++)
        if (alive(r) && !map_done_[static_cast<size_t>(r)])
            return DESYNC_SUCCESS;
    ended_ = true;
    for (int r = 1; r < channel_.size(); r++)
        if (channel_.send(r, TAG_END, {}) != MPI_SUCCESS)
            return fail(DESYNC_ERR_MPI, "sending the end of the job failed");
    return DESYNC_SUCCESS;
}

} // namespace desync
