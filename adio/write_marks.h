// Optimistic reads on one node (piox_lock_optimistic_begin, piox_lock.h): a table in
// the shared-memory lock's segment where every granted write marks the blocks of the
// file (kBlockBytes each) it is about to write, so that a reader that queued for
// nothing can tell afterwards whether a write overlapped its read. It is a seqlock
// per block:
//   writer: once granted, for each word its blocks map to, add one to the generation
//           and one to the writers at work; write; take the writers off again; leave.
//   reader: note each word of its blocks; if a writer is at work in any, give up (take
//           the read lock). Read. Note them again: unchanged means that no write
//           overlapping the read began or was under way while it ran, so the read saw
//           the bytes as they were at one instant between writes (MPI's atomic mode).
// Why: a read lock makes the writers behind it wait until the reader runs again; with
// more processes than cores a reader is often preempted, and the writer, then every
// reader behind it, waits out a time slice (issue 19). An optimistic reader holds
// nothing, so a preempted one delays nobody.
// Block b maps to word b % kWords: blocks that share a word, like a reader and a
// writer of disjoint bytes of one block, only make a read fail its check needlessly
// (it then takes the lock), never pass wrongly. Why blocks of 64 KiB and not pages:
// interleaved writers mark the same words, and each mark is an atomic operation on a
// cache line the others write too; with 4 KiB pages the 16 marks and 16 unmarks of
// examples/atomic_blocks.c's 64 KiB write made its calls 15-25% slower at 4 ranks.
#ifndef PIOX_ADIO_WRITE_MARKS_H
#define PIOX_ADIO_WRITE_MARKS_H

#include "extent_list.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace piox::adio {

class WriteMarks {
public:
    static constexpr size_t kWords = 4096;
    static constexpr MPI_Offset kBlockBytes = MPI_Offset(64) << 10;
    static constexpr size_t table_bytes() { return kWords * sizeof(std::atomic<uint64_t>); }
    static void initialise(void *table);  // once, by the segment's creator

    explicit WriteMarks(void *table) : words_(static_cast<std::atomic<uint64_t> *>(table)) {}

    // Writers (extents normalised): between the grant and the release.
    void begin_writing(const ExtentList &extents);
    void end_writing();
    // Readers: begin_reading false when a write is under way on a word of the
    // extents; reading_valid after the read.
    bool begin_reading(const ExtentList &extents);
    bool reading_valid() const;

private:
    // The words the extents' blocks map to, each once, into *out.
    void words_of(const ExtentList &extents, std::vector<uint32_t> *out);

    std::atomic<uint64_t> *words_;
    std::vector<uint32_t> writing_;  // the words the current write marked
    std::vector<uint32_t> reading_;  // the words the current read noted
    std::vector<uint64_t> seen_;     // and what it saw in each
    std::vector<uint64_t> touched_;  // words_of's bit set, kWords bits, kept clear
};

}  // namespace piox::adio

#endif
