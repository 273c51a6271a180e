// Shared file pointer kept in a shared-memory window, for communicators that sit on
// one node. Shared-mode accesses are a single CPU fetch-and-add on the segment:
// no MPI call, so no process ever waits for the host rank to enter MPI.
//
// Collective steps (ordered mode, seek, view reset) meet at a rendezvous in the same
// segment: each process posts its value and increments `arrived`; the last to arrive
// does the whole step (scan, pointer update, checks), publishes per-rank results and
// bumps `generation`. The others sleep on `generation` with a futex, after a short
// spin and a few yields (WaitPolicy), so the step costs at most one wake-up instead
// of a busy-waiting MPI collective.
#include "futex.h"
#include "piox_log.h"
#include "sfp_transport.h"
#include "windows.h"
#include "wait.h"

#include <atomic>
#include <cstdint>
#include <new>

namespace piox::adio {
namespace {

static_assert(std::atomic<int64_t>::is_always_lock_free, "need lock-free 64-bit atomics");

struct ShmHeader {
    alignas(64) std::atomic<int64_t> pointer;
    alignas(64) std::atomic<uint32_t> arrived;  // processes in the current rendezvous
    alignas(64) std::atomic<uint32_t> generation;  // bumped when a rendezvous completes
    std::atomic<uint32_t> sleepers;  // waiters inside futex_wait (also WaitPolicy's count)
    int32_t status;                  // outcome of the last rendezvous
};

class ShmTransport final : public SfpTransport {
public:
    ShmTransport(MPI_Comm comm, MPI_Win win, ShmHeader *header, int rank, int size)
        : comm_(comm), win_(win), header_(header), rank_(rank), size_(size),
          posted_(reinterpret_cast<MPI_Offset *>(header + 1)), results_(posted_ + size),
          policy_(WaitPolicy::for_processes(size, &header->sleepers))
    {
    }

    int fetch_add(MPI_Offset delta, MPI_Offset *previous) override
    {
        *previous = header_->pointer.fetch_add(delta, std::memory_order_acq_rel);
        return MPI_SUCCESS;
    }

    int read(MPI_Offset *current) override
    {
        *current = header_->pointer.load(std::memory_order_acquire);
        return MPI_SUCCESS;
    }

    int store(MPI_Offset value) override
    {
        header_->pointer.store(value, std::memory_order_release);
        return MPI_SUCCESS;
    }

    int ordered(MPI_Offset delta, MPI_Offset *offset) override
    {
        return rendezvous(delta, offset, [this]() {
            int64_t next = header_->pointer.load(std::memory_order_acquire);
            for (int i = 0; i < size_; i++) {
                results_[i] = next;
                next += posted_[i];
            }
            header_->pointer.store(next, std::memory_order_release);
            return MPI_SUCCESS;
        });
    }

    int update(piox_sfp_op op, MPI_Offset operand, MPI_Offset *result) override
    {
        MPI_Offset mine = 0;
        int rc = rendezvous(operand, &mine, [this, op]() {
            bool agree = true;
            for (int i = 1; i < size_; i++)
                agree = agree && posted_[i] == posted_[0];
            int64_t current = header_->pointer.load(std::memory_order_acquire);
            int64_t next = apply_update(op, current, posted_[0], agree);
            if (next < 0) {
                for (int i = 0; i < size_; i++)
                    results_[i] = current;
                return MPI_ERR_ARG;
            }
            header_->pointer.store(next, std::memory_order_release);
            for (int i = 0; i < size_; i++)
                results_[i] = next;
            return MPI_SUCCESS;
        });
        if (result != nullptr)
            *result = mine;
        return rc;
    }

    int release() override
    {
        return free_window_and_comm(&win_, &comm_);
    }

    const char *name() const override { return "shm"; }

private:
    // Posts value, waits for every process, and returns this process's result. The
    // last process to arrive runs step(), which reads posted_ and fills results_.
    template <typename Step>
    int rendezvous(MPI_Offset value, MPI_Offset *result, Step step)
    {
        const uint32_t generation = header_->generation.load(std::memory_order_acquire);
        posted_[rank_] = value;
        const uint32_t before = header_->arrived.fetch_add(1, std::memory_order_acq_rel);
        if (before + 1 == static_cast<uint32_t>(size_)) {
            header_->status = step();
            header_->arrived.store(0, std::memory_order_relaxed);
            header_->generation.fetch_add(1, std::memory_order_seq_cst);
            if (header_->sleepers.load(std::memory_order_seq_cst) != 0)
                futex_wake_all(&header_->generation);
        } else {
            wait_for_generation_change(generation);
        }
        // results_[rank_] and status stay valid until this process arrives again,
        // because the next step cannot run before every process has arrived.
        *result = results_[rank_];
        return header_->status;
    }

    void wait_for_generation_change(uint32_t generation)
    {
        auto changed = [&] {
            return header_->generation.load(std::memory_order_acquire) != generation;
        };
        if (policy_.wait_actively(changed))
            return;
        while (!changed()) {
            // Announce the sleep before re-checking, so that the waker (which bumps
            // generation before reading sleepers) either sees us or we see its bump.
            header_->sleepers.fetch_add(1, std::memory_order_seq_cst);
            if (header_->generation.load(std::memory_order_seq_cst) == generation)
                futex_wait(&header_->generation, generation);
            header_->sleepers.fetch_sub(1, std::memory_order_seq_cst);
        }
    }

    MPI_Comm comm_;
    MPI_Win win_;
    ShmHeader *header_;
    int rank_;
    int size_;
    MPI_Offset *posted_;   // size_ slots: each process's contribution
    MPI_Offset *results_;  // size_ slots: each process's answer
    WaitPolicy policy_;
};

}  // namespace

int make_shm_transport(MPI_Comm comm, MPI_Offset initial, std::unique_ptr<SfpTransport> *out)
{
    int rank = 0, size = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    const MPI_Aint bytes = static_cast<MPI_Aint>(sizeof(ShmHeader) +
                                                 2 * sizeof(MPI_Offset) * static_cast<size_t>(size));

    MPI_Win win = MPI_WIN_NULL;
    void *host = nullptr;
    int rc = allocate_node_segment(
        comm, bytes,
        [initial](void *base) {
            auto *header = new (base) ShmHeader();
            header->pointer.store(initial, std::memory_order_relaxed);
            header->arrived.store(0, std::memory_order_relaxed);
            header->generation.store(0, std::memory_order_relaxed);
            header->sleepers.store(0, std::memory_order_relaxed);
            header->status = MPI_SUCCESS;
        },
        &win, &host);
    if (rc != MPI_SUCCESS)
        return rc;
    out->reset(new ShmTransport(comm, win, static_cast<ShmHeader *>(host), rank, size));
    return MPI_SUCCESS;
}

}  // namespace piox::adio
