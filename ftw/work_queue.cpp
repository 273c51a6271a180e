// work_queue.cpp - the shared queue and the paper's queue splitting.
#include "work_queue.h"

namespace pftw {

void WorkQueue::push(WorkItem &&item)
{
    std::lock_guard<std::mutex> lock(mutex_);
    items_.push_back(std::move(item));
    if (sleeping_)
        wake_.notify_one();
}

bool WorkQueue::wait_pop(WorkItem *item)
{
    std::unique_lock<std::mutex> lock(mutex_);
    while (items_.empty() && !closed_) {
        sleeping_++;
        wake_.wait(lock);
        sleeping_--;
    }
    if (items_.empty())
        return false;
    *item = std::move(items_.back());
    items_.pop_back();
    busy_++;
    return true;
}

WorkQueue::Wait WorkQueue::wait_pop_for(WorkItem *item, std::chrono::microseconds timeout)
{
    std::unique_lock<std::mutex> lock(mutex_);
    if (items_.empty() && busy_ > 0) {
        sleeping_++;
        wake_.wait_for(lock, timeout, [&] { return !items_.empty() || busy_ == 0; });
        sleeping_--;
    }
    if (items_.empty())
        return busy_ == 0 ? Wait::idle : Wait::timeout;
    *item = std::move(items_.back());
    items_.pop_back();
    busy_++;
    return Wait::item;
}

void WorkQueue::done_with_item()
{
    std::lock_guard<std::mutex> lock(mutex_);
    if (--busy_ == 0 && items_.empty() && sleeping_)
        wake_.notify_all();  // a master may be waiting for the queue to go idle
}

std::vector<WorkItem> WorkQueue::split_off(Split split, std::mt19937_64 &random)
{
    std::vector<WorkItem> given;
    std::lock_guard<std::mutex> lock(mutex_);
    size_t queued = items_.size();
    // How many of n units to give: the paper's random split (any part, keeping at
    // least one) or the equal split (DEQS: half).
    auto share = [&](size_t n) {
        return split == Split::equal ? n / 2 : std::uniform_int_distribution<size_t>(1, n - 1)(random);
    };
    if (queued >= 2) {
        size_t count = share(queued);
        for (size_t i = 0; i < count; i++) {
            given.push_back(std::move(items_.front()));
            items_.pop_front();
        }
    } else if (queued == 1 && items_.front().kind == WorkItem::Kind::names &&
               items_.front().types.size() >= 2) {
        given.push_back(split_names(&items_.front(), share(items_.front().types.size())));
    }
    return given;
}

void WorkQueue::clear()
{
    std::lock_guard<std::mutex> lock(mutex_);
    items_.clear();
}

void WorkQueue::close()
{
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    wake_.notify_all();
}

}  // namespace pftw
