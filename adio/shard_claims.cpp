// See shard_claims.h. Why the claims are checked when read:
//   MPI makes each element of an accumulate atomic, not the whole operation, so a
//   claim read while its writer's accumulate is still landing may mix old and new
//   words. A claim therefore carries its number and a hash of its words; a reader
//   that finds another number or a wrong hash reads again (a mix passes only by a
//   64-bit hash collision). The writer's round trip is already under way, so the
//   wait is short and ends without the writer's help.
// What the MPI library must do (README: what the network must offer):
//   - the mode word is changed by compare-and-swap and by MPI_REPLACE
//     fetch-and-op, and these must be atomic with respect to each other (as in the
//     MCS lock of Gropp, Hoefler, Thakur and Lusk, "Using Advanced MPI", ch. 4; a
//     compare-and-swap loop instead of the swap would let a stream of fast
//     acquires starve the process that takes the shard over);
//   - nothing relies on accumulate ordering: every dependency waits for a flush.
#include "shard_claims.h"

#include "windows.h"

#include <cstring>

namespace piox::adio {
namespace {

// One process's claim on one shard, as 64-bit words (accumulated as MPI_UINT64_T).
struct Claim {
    uint64_t check;           // hash of the words below, up to the last extent
    uint64_t number;          // as in the mode word fast(p, number)
    uint64_t mode_and_count;  // mode << 32 | number of extents
    piox_extent extents[kSlotExtents];
};
static_assert(sizeof(piox_extent) == 2 * sizeof(uint64_t), "extents are two words");
constexpr int kHeadWords = 3;
constexpr size_t kModeBytes = sizeof(uint64_t);  // the 32-bit mode word, padded: claims align
constexpr int kClaimWords = static_cast<int>(sizeof(Claim) / sizeof(uint64_t));

int words_of(uint32_t count) { return kHeadWords + 2 * static_cast<int>(count); }

// splitmix64's finaliser over the words after `check`.
uint64_t hash_of(const Claim &claim, uint32_t count)
{
    const auto *words = reinterpret_cast<const uint64_t *>(&claim);
    uint64_t h = 0x6a09e667f3bcc908u;
    for (int i = 1; i < words_of(count); i++) {
        h ^= words[i];
        h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9u;
        h = (h ^ (h >> 27)) * 0x94d049bb133111ebu;
        h ^= h >> 31;
    }
    return h;
}

MPI_Aint block_bytes(int processes)
{
    return static_cast<MPI_Aint>(kModeBytes + sizeof(Claim) * static_cast<size_t>(processes));
}

}  // namespace

int ShardClaims::create(MPI_Comm comm, int shards, RoundTrips *sync,
                        std::unique_ptr<ShardClaims> *out)
{
    int rank = 0, size = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    if (size > shard_mode::kMaxProcesses)
        return MPI_ERR_OTHER;  // the mode word cannot name them all
    const int mine = shards_homed_on(rank, size, shards);
    void *memory = nullptr;
    MPI_Win win = MPI_WIN_NULL;
    // Zero: every mode word kIdle, every claim number 0 (never a real one).
    int rc = allocate_zeroed_window(comm, mine * block_bytes(size), &win, &memory);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    if (rc != MPI_SUCCESS) {
        PMPI_Win_free(&win);
        return rc;
    }
    out->reset(new ShardClaims(win, rank, size, sync));
    return MPI_SUCCESS;
}

int ShardClaims::destroy()
{
    int rc = PMPI_Win_unlock_all(win_);
    int rc2 = PMPI_Win_free(&win_);
    return rc != MPI_SUCCESS ? rc : rc2;
}

MPI_Aint ShardClaims::word_of(int shard) const
{
    return static_cast<MPI_Aint>(shard / size_) * block_bytes(size_);
}

MPI_Aint ShardClaims::claim_of(int shard, int rank) const
{
    return word_of(shard) + static_cast<MPI_Aint>(kModeBytes + sizeof(Claim) * static_cast<size_t>(rank));
}

int ShardClaims::try_fast(int shard, uint32_t number, piox_lock_mode mode,
                          const ExtentList &pieces, uint32_t *before)
{
    Claim claim{};
    const auto count = static_cast<uint32_t>(pieces.size());
    claim.number = number;
    claim.mode_and_count = uint64_t(mode) << 32 | count;
    std::memcpy(claim.extents, pieces.data(), pieces.size() * sizeof(piox_extent));
    claim.check = hash_of(claim, count);
    const uint32_t idle = shard_mode::kIdle, mine = shard_mode::fast(rank_, number);
    const int home = home_of(shard);
    // Both operations share one flush: the claim may land after the word changes,
    // which is why readers check it (see above).
    int rc = PMPI_Accumulate(&claim, words_of(count), MPI_UINT64_T, home, claim_of(shard, rank_),
                             words_of(count), MPI_UINT64_T, MPI_REPLACE, win_);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Compare_and_swap(&mine, &idle, before, MPI_UINT32_T, home, word_of(shard), win_);
    int rc2 = sync_->flush(home, win_);
    return rc != MPI_SUCCESS ? rc : rc2;
}

int ShardClaims::try_release(int shard, uint32_t number, bool *released)
{
    const uint32_t idle = shard_mode::kIdle, mine = shard_mode::fast(rank_, number);
    uint32_t before = 0;
    const int home = home_of(shard);
    int rc = PMPI_Compare_and_swap(&idle, &mine, &before, MPI_UINT32_T, home, word_of(shard), win_);
    int rc2 = sync_->flush(home, win_);
    if (rc != MPI_SUCCESS || rc2 != MPI_SUCCESS)
        return rc != MPI_SUCCESS ? rc : rc2;
    *released = before == mine;
    // Only a mutex holder takes a fast holder's word, and it leaves kTable.
    return *released || before == shard_mode::kTable ? MPI_SUCCESS : MPI_ERR_INTERN;
}

int ShardClaims::swap_word(int shard, uint32_t value, uint32_t *before)
{
    const int home = home_of(shard);
    int rc = PMPI_Fetch_and_op(&value, before, MPI_UINT32_T, home, word_of(shard), MPI_REPLACE,
                               win_);
    int rc2 = sync_->flush(home, win_);
    return rc != MPI_SUCCESS ? rc : rc2;
}

int ShardClaims::to_table(int shard, uint32_t *before)
{
    return swap_word(shard, shard_mode::kTable, before);
}

int ShardClaims::to_idle(int shard)
{
    uint32_t before = 0;
    return swap_word(shard, shard_mode::kIdle, &before);
}

int ShardClaims::read_claim(int shard, int rank, uint32_t number, Slot *slot)
{
    Claim claim{};
    const int home = home_of(shard);
    for (;;) {
        // MPI_NO_OP: an atomic read of each word, which a concurrent accumulate allows.
        int rc = PMPI_Get_accumulate(nullptr, 0, MPI_UINT64_T, &claim, kClaimWords, MPI_UINT64_T,
                                     home, claim_of(shard, rank), kClaimWords, MPI_UINT64_T,
                                     MPI_NO_OP, win_);
        int rc2 = sync_->flush(home, win_);
        if (rc != MPI_SUCCESS || rc2 != MPI_SUCCESS)
            return rc != MPI_SUCCESS ? rc : rc2;
        const auto count = static_cast<uint32_t>(claim.mode_and_count & 0xffffffffu);
        if ((claim.number & shard_mode::kNumberMask) == number && count <= kSlotExtents && claim.check == hash_of(claim, count)) {
            slot->mode = static_cast<uint32_t>(claim.mode_and_count >> 32);
            slot->count = count;
            std::memcpy(slot->extents, claim.extents, count * sizeof(piox_extent));
            return MPI_SUCCESS;
        }
    }
}

}  // namespace piox::adio
