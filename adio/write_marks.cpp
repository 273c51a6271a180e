// See write_marks.h.
#include "write_marks.h"

#include <new>

namespace piox::adio {
namespace {

// A word: the generation above kWriterBits, the writers at work below. At most one
// request per process marks a word once, so the writers fit.
constexpr int kWriterBits = 24;
constexpr uint64_t kOneWriter = 1;
constexpr uint64_t kOneGeneration = uint64_t(1) << kWriterBits;
constexpr uint64_t kWritersMask = kOneGeneration - 1;

}  // namespace

void WriteMarks::initialise(void *table)
{
    auto *words = static_cast<std::atomic<uint64_t> *>(table);
    for (size_t w = 0; w < kWords; w++)
        new (&words[w]) std::atomic<uint64_t>(0);
}

void WriteMarks::words_of(const ExtentList &extents, std::vector<uint32_t> *out)
{
    out->clear();
    touched_.resize(kWords / 64);
    for (const piox_extent &extent : extents) {
        if (extent.length <= 0)
            continue;
        const MPI_Offset first = extent.offset / kBlockBytes;
        const MPI_Offset last = (end_of(extent) - 1) / kBlockBytes;
        const bool all = last - first + 1 >= static_cast<MPI_Offset>(kWords);
        for (MPI_Offset block = first; block <= (all ? first + kWords - 1 : last); block++) {
            const auto word = static_cast<uint32_t>(block % static_cast<MPI_Offset>(kWords));
            uint64_t &bits = touched_[word / 64];
            const uint64_t bit = uint64_t(1) << (word % 64);
            if ((bits & bit) == 0) {
                bits |= bit;
                out->push_back(word);
            }
        }
    }
    for (uint32_t word : *out)
        touched_[word / 64] = 0;
}

void WriteMarks::begin_writing(const ExtentList &extents)
{
    words_of(extents, &writing_);
    // seq_cst: a reader that sees any byte of this write must see the mark.
    for (uint32_t word : writing_)
        words_[word].fetch_add(kOneGeneration + kOneWriter, std::memory_order_seq_cst);
}

void WriteMarks::end_writing()
{
    for (uint32_t word : writing_)
        words_[word].fetch_sub(kOneWriter, std::memory_order_release);
    writing_.clear();
}

bool WriteMarks::begin_reading(const ExtentList &extents)
{
    words_of(extents, &reading_);
    seen_.resize(reading_.size());
    for (size_t i = 0; i < reading_.size(); i++) {
        seen_[i] = words_[reading_[i]].load(std::memory_order_acquire);
        if ((seen_[i] & kWritersMask) != 0)
            return false;
    }
    return !reading_.empty();
}

bool WriteMarks::reading_valid() const
{
    // The read's bytes (the kernel's copy) come before the second look.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    for (size_t i = 0; i < reading_.size(); i++)
        if (words_[reading_[i]].load(std::memory_order_acquire) != seen_[i])
            return false;
    return !reading_.empty();
}

}  // namespace piox::adio
