// rank_walker.cpp - the work loop, the answers to peers, and the clean ending.
#include "rank_walker.h"

#include "ticks.h"

#include <algorithm>
#include <thread>

#include <sched.h>
#include <time.h>

namespace pftw {

namespace {

// How an idle master waits between polls: a few sched_yield calls, then sleeps that
// grow to 100 us. MPICH's blocking calls and a bare MPI_Iprobe loop spin, so with
// more ranks than cores idle ranks would take the CPU from the busy ones. The cap is
// short because every hop of the termination token and every reply to a request
// waits for its receiver's next poll: with 1 ms sleeps, ending a 4-rank walk of the
// 500,000-entry tree took 50-90 ms (a fifth of the walk without stat); with 100 us,
// 7-15 ms. An idle rank then wakes 10,000 times a second, a few percent of a cpu.
class IdleBackoff {
public:
    void reset() { rounds_ = 0; }
    void pause()
    {
        if (rounds_ < kYields) {
            sched_yield();
        } else {
            long micros = std::min<long>(kMaxSleepMicros, kFirstSleepMicros << std::min(rounds_ - kYields, 10));
            timespec sleep{0, micros * 1000};
            nanosleep(&sleep, nullptr);
        }
        rounds_++;
    }

private:
    static constexpr int kYields = 8;
    static constexpr long kFirstSleepMicros = 10;
    static constexpr long kMaxSleepMicros = 100;
    int rounds_ = 0;
};

// A busy master looks at its messages at most this often: a probe costs about a
// microsecond, small directories take a few.
constexpr double kPollSeconds = 50e-6;
// How long the master waits for its threads to queue work before it looks at its
// messages again; and, in a walk on one rank, before it looks at the progress clock.
constexpr long kBusyWaitMicros = 200;
constexpr long kAloneWaitMicros = 100000;
// How long an idle rank waits for the reply to its request before it asks a second
// peer too.
constexpr double kSecondRequestSeconds = 200e-6;

}  // namespace

RankWalker::RankWalker(MPI_Comm comm, int rank, int size, WalkContext *context, const NodeLayout &layout,
                       uint64_t seed, const ProgressReport &progress)
    : comm_(comm), rank_(rank), size_(size), context_(context), messenger_(comm, size),
      peers_(context->options.algorithm, layout, rank, size, seed), termination_(rank, size),
      split_random_(seed ^ 0x9e3779b97f4a7c15ULL), progress_(progress)
{
    for (int t = 0; t < context->options.threads; t++)
        processors_.push_back(std::make_unique<ItemProcessor>(context, t));
    progress_counts_.assign(size_, 0);
}

RankWalker::~RankWalker() = default;

ThreadTally RankWalker::tally() const
{
    ThreadTally sum;
    for (const auto &processor : processors_) {
        const ThreadTally &t = processor->tally();
        sum.entries += t.entries;
        sum.directories += t.directories;
        sum.files += t.files;
        sum.symlinks += t.symlinks;
        sum.others += t.others;
        sum.bytes += t.bytes;
        sum.errors += t.errors;
        sum.ticks_visit += t.ticks_visit;
        sum.ticks_stat += t.ticks_stat;
        sum.ticks_readdir += t.ticks_readdir;
    }
    return sum;
}

uint64_t RankWalker::entries_so_far() const
{
    uint64_t sum = 0;
    for (const auto &processor : processors_)
        sum += processor->visited();
    return sum;
}

void RankWalker::run(WorkItem *root)
{
    start_ = seconds_now();
    next_progress_ = start_ + progress_.interval;
    if (root)
        context_->queue.push(std::move(*root));

    std::vector<std::thread> workers;
    for (size_t t = 1; t < processors_.size(); t++)
        workers.emplace_back([this, t] {
            WorkItem item;
            while (context_->queue.wait_pop(&item)) {
                processors_[t]->process(item);
                item = WorkItem();  // let go of the directory it held open
                context_->queue.done_with_item();
            }
        });

    IdleBackoff backoff;
    double next_poll = 0;
    while (!terminated_ && !messenger_.failed()) {
        double now = seconds_now();
        if (size_ > 1 && now >= next_poll) {
            service_messages();
            double after = seconds_now();
            result_.seconds_comm += after - now;
            next_poll = after + kPollSeconds;
        }
        if (context_->stop_to_announce.exchange(false))
            announce_stop();
        if (progress_.interval > 0 && now >= next_progress_)
            report_progress();
        // With peers, come back for messages soon; alone, only progress reports do.
        auto wait = std::chrono::microseconds(size_ > 1 ? kBusyWaitMicros : kAloneWaitMicros);
        WorkItem item;
        WorkQueue::Wait got = context_->queue.wait_pop_for(&item, wait);
        if (got == WorkQueue::Wait::item) {
            processors_[0]->process(item);
            item = WorkItem();  // let go of the directory it held open
            context_->queue.done_with_item();
            backoff.reset();
            continue;
        }
        next_poll = 0;  // no item of our own: keep an eye on messages
        if (got == WorkQueue::Wait::timeout)
            continue;   // the other threads are busy and may queue more
        if (size_ == 1)
            break;      // idle, and nobody else can bring work
        act_while_idle();
        double idle_start = seconds_now();
        if (!terminated_)
            backoff.pause();
        result_.seconds_comm += seconds_now() - idle_start;
    }
    context_->queue.close();
    for (std::thread &worker : workers)
        worker.join();
    if (size_ > 1)
        finish();
    result_.token_rounds = termination_.rounds();
    result_.mpi_failed = messenger_.failed();
    result_.stopped = context_->stopped.load();
}

// The rank has no work and its threads are idle: move the token, then ask for work.
// Neither happens while a request awaits its reply (see termination.h).
void RankWalker::act_while_idle()
{
    if (requests_outstanding_ > 0) {
        // With more ranks than cpus the peer asked may not be running, and its reply
        // waits for its next time slice: after a while, ask a second peer as well.
        if (requests_outstanding_ == 1 && seconds_now() - asked_at_ >= kSecondRequestSeconds) {
            int peer = peers_.next();
            if (peer >= 0 && peer != first_asked_) {
                messenger_.send(peer, kTagRequest, std::string());
                requests_outstanding_ = 2;
            }
        }
        return;
    }
    Termination::Step step = termination_.on_idle();
    if (step.terminated) {
        terminated_ = true;
        for (int r = 1; r < size_; r++)
            messenger_.send(r, kTagDone, std::string());
        return;
    }
    if (step.send)
        messenger_.send(step.to, kTagToken, std::string(1, static_cast<char>(step.color)));
    int peer = peers_.next();
    if (peer >= 0) {
        messenger_.send(peer, kTagRequest, std::string());
        requests_outstanding_ = 1;
        first_asked_ = peer;
        asked_at_ = seconds_now();
    }
}

void RankWalker::service_messages()
{
    MPI_Status status;
    while (messenger_.probe(&status))
        handle(status);
    messenger_.sends_completed();
}

void RankWalker::handle(const MPI_Status &status)
{
    std::string payload;
    if (!messenger_.receive(status, &payload))
        return;
    const int from = status.MPI_SOURCE;
    switch (status.MPI_TAG) {
    case kTagRequest:
        answer_request(from);
        break;
    case kTagWork:
        take_reply(from, payload);
        break;
    case kTagToken:
        termination_.token_arrived(payload.size() == 1 && payload[0] == static_cast<char>(Color::black)
                                       ? Color::black
                                       : Color::white);
        break;
    case kTagDone:
        terminated_ = true;
        break;
    case kTagStop:
        if (!context_->stopped.exchange(true))
            context_->queue.clear();
        break;
    case kTagProgress:
        if (payload.size() == sizeof(uint64_t))
            std::copy(payload.begin(), payload.end(), reinterpret_cast<char *>(&progress_counts_[from]));
        break;
    default:
        break;
    }
}

void RankWalker::answer_request(int from)
{
    std::vector<WorkItem> given;
    if (!terminated_ && !context_->stopped.load())
        given = context_->queue.split_off(context_->options.split, split_random_);
    std::string payload;
    serialize_items(given, &payload);
    if (!given.empty()) {
        termination_.sent_work_to(from);
        result_.requests_served++;
    }
    messenger_.send(from, kTagWork, std::move(payload));
}

void RankWalker::take_reply(int from, const std::string &payload)
{
    (void)from;
    requests_outstanding_--;
    std::vector<WorkItem> items;
    if (payload.empty() || !deserialize_items(payload.data(), payload.size(), &items) || items.empty()) {
        result_.requests_unfruitful++;
        return;
    }
    result_.requests_fruitful++;
    peers_.fruitful();
    if (context_->stopped.load())
        return;
    for (WorkItem &item : items)
        context_->queue.push(std::move(item));
}

void RankWalker::announce_stop()
{
    for (int r = 0; r < size_; r++)
        if (r != rank_)
            messenger_.send(r, kTagStop, std::string(), /*synchronous=*/true);
}

void RankWalker::report_progress()
{
    double now = seconds_now();
    next_progress_ = now + progress_.interval;
    uint64_t mine = entries_so_far();
    if (rank_ == 0) {
        progress_counts_[0] = mine;
        uint64_t total = 0;
        for (uint64_t count : progress_counts_)
            total += count;
        if (progress_.callback)
            progress_.callback(total, now - start_, progress_.extra);
        return;
    }
    // One report in flight at a time; each is synchronous so none is left unreceived.
    if (progress_outstanding_ && !messenger_.sends_completed(/*synchronous_only=*/true))
        return;
    progress_outstanding_ = true;
    messenger_.send(0, kTagProgress, std::string(reinterpret_cast<const char *>(&mine), sizeof mine),
                    /*synchronous=*/true);
}

// After termination: wait for the replies to our own last requests and for the
// synchronous sends, then meet the others in a nonblocking barrier, answering
// requests (with no work) until everyone is there. Then no message is in flight.
void RankWalker::finish()
{
    IdleBackoff backoff;
    while ((requests_outstanding_ > 0 || !messenger_.sends_completed(/*synchronous_only=*/true)) && !messenger_.failed()) {
        service_messages();
        backoff.pause();
    }
    MPI_Request barrier;
    if (MPI_Ibarrier(comm_, &barrier) != MPI_SUCCESS) {
        result_.mpi_failed = true;
        return;
    }
    int done = 0;
    backoff.reset();
    while (!done && !messenger_.failed()) {
        service_messages();
        MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
        if (!done)
            backoff.pause();
    }
    messenger_.complete_all_sends();
}

}  // namespace pftw
