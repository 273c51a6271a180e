// checkpoint.h - the checkpoint file of desync_checkpoint (NOTES.md 2.6): every
// replicated version's blocks at fixed offsets, in one of two slots (A/B), and two
// header records, one per slot, naming the version the slot holds whole. A restart
// takes the valid record of the highest version; a write torn by a crash damages
// only the slot (or record) being written, never the one a record names.
//
//   offset 0 and 512: record of slot 0 and of slot 1 (Record below)
//   offset 4096 + slot * slot_bytes + (first block of the file + block) * stride:
//       the block's buffer as the store holds it: its 64-byte header (address and
//       length), then its bytes, padded to stride = 64 + desync_checkpoint_block
//
// Blocks are found by address alone, so a restart may use any number of processes,
// layout or window. Knows MPI-IO and the job's shapes; nothing of the runtime.
#pragma once

#include "address.h"
#include "job.h"

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace desync {

class Checkpoint {
public:
    Checkpoint() = default;
    Checkpoint(const Checkpoint &) = delete;
    Checkpoint &operator=(const Checkpoint &) = delete;
    ~Checkpoint() = default; // close() is collective: the runtime's end calls it

    // Collective over comm. Opens (or creates) job.checkpoint and reads its records:
    // *resume is the last version held whole, -1 for none. A file that is not a
    // checkpoint, or another job's, is refused (DESYNC_ERR_HINT) and left as it is.
    int open(MPI_Comm comm, const Job &job, int *resume, std::string *why);
    // Collective: reads the blocks given (their buffers' whole records, stride bytes
    // each, into `records`, one after another) of version `resume`.
    int read(const std::vector<Address> &blocks, int resume, std::vector<char> *records, std::string *why);
    // An independent, nonblocking write of one block's record (header and bytes) into
    // its version's slot; the buffer must stay until *request completes.
    int write(const Address &a, const char *record, size_t size, MPI_Request *request);
    // The map's: records that the slot of `version` now holds it whole.
    int commit(int version, std::string *why);
    int close(); // collective

    size_t stride() const { return stride_; }
    bool is_open() const { return file_ != MPI_FILE_NULL; }

private:
    MPI_Offset offset(const Address &a, int version) const;
    const Job *job_ = nullptr;
    MPI_File file_ = MPI_FILE_NULL;
    size_t stride_ = 0;
    uint64_t identity_ = 0;                // the job's shapes, R and stride, hashed
    std::vector<long long> first_block_;   // per file index: its first block in a slot
    MPI_Offset slot_bytes_ = 0;
};

} // namespace desync
