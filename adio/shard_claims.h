// The fast path of the range lock across nodes (lock_rma_range.cpp has the protocol
// and the argument for it): per shard, on the shard's home rank, a mode word and one
// claim per process, in an MPI window that stays inside one MPI_Win_lock_all epoch
// and is reached only with MPI-3 atomics, so that taking an idle shard is one round
// trip and giving it back another.
#ifndef PIOX_ADIO_SHARD_CLAIMS_H
#define PIOX_ADIO_SHARD_CLAIMS_H

#include "extent_list.h"
#include "piox_lock.h"
#include "range_shards.h"
#include "round_trips.h"

#include <cstdint>
#include <memory>

namespace piox::adio {

// A shard's mode word: who may hold the shard's bytes, and where that is written.
//   kIdle          nobody holds or waits, and the shard's table is empty;
//   fast(p, n)     process p alone holds the shard, by its claim number n: its mode
//                  and extents are in its claim, not in the table;
//   kTable         the shard's table holds every request (lock_rma_range.cpp).
// 32 bits: Open MPI 4.1's shared-memory transport (btl/vader) crashes on 64-bit
// MPI_Compare_and_swap (open-mpi/ompi#7967). 27 bits name the process; 4 number
// the claim, enough since a reader only has to tell claim n from the one before.
namespace shard_mode {
constexpr uint32_t kIdle = 0;
constexpr uint32_t kTable = 1;
constexpr uint32_t kNumberMask = 0xf;  // claim numbers 1..15, never 0
constexpr int kMaxProcesses = 1 << 27;

inline uint32_t fast(int rank, uint32_t number)
{
    return (uint32_t(1) << 31) | ((number & kNumberMask) << 27) | uint32_t(rank);
}
inline bool is_fast(uint32_t word) { return (word >> 31) != 0; }
inline int holder(uint32_t word) { return static_cast<int>(word & (kMaxProcesses - 1)); }
inline uint32_t number(uint32_t word) { return (word >> 27) & kNumberMask; }
}  // namespace shard_mode

class ShardClaims {
public:
    // Collective over comm: the window (every shard idle) and its epoch. sync counts
    // the flushes and must outlive the object.
    static int create(MPI_Comm comm, int shards, RoundTrips *sync,
                      std::unique_ptr<ShardClaims> *out);
    // Collective: ends the epoch and frees the window.
    int destroy();

    // One round trip: writes this process's claim `number` (mode and pieces) and
    // swaps the mode word from kIdle to fast(me, number). *before is the word it
    // found: kIdle means the shard is now ours.
    int try_fast(int shard, uint32_t number, piox_lock_mode mode, const ExtentList &pieces,
                 uint32_t *before);
    // One round trip: fast(me, number) back to kIdle. *released is false when the
    // word had become kTable (someone moved our request into the table).
    int try_release(int shard, uint32_t number, bool *released);

    // Only under the shard table's mutex, one round trip each. to_table swaps the word
    // to kTable; *before is what it was. to_idle sets it back once the table is empty
    // (waited for, so that it lands before the mutex is let go).
    int to_table(int shard, uint32_t *before);
    int to_idle(int shard);
    // Reads claim `number` of process `rank` into slot (mode, count, extents),
    // reading again while that claim is still on its way.
    int read_claim(int shard, int rank, uint32_t number, Slot *slot);

private:
    ShardClaims(MPI_Win win, int rank, int size, RoundTrips *sync)
        : win_(win), rank_(rank), size_(size), sync_(sync)
    {
    }
    int home_of(int shard) const { return shard % size_; }
    MPI_Aint word_of(int shard) const;
    MPI_Aint claim_of(int shard, int rank) const;
    int swap_word(int shard, uint32_t value, uint32_t *before);

    MPI_Win win_;
    int rank_;
    int size_;
    RoundTrips *sync_;
};

}  // namespace piox::adio

#endif
