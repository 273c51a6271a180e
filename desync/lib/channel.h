// channel.h - the runtime's messages over its own duplicate of the job's communicator:
// nonblocking sends that keep their bytes until done, a nonblocking receive of
// whatever has arrived, and the end: every message sent is received before
// desynch_Run returns (counts exchanged, then drained), so no message outlives the job.
#pragma once

#include <mpi.h>

#include <functional>
#include <vector>

namespace desync {

enum Tag {
    TAG_REQUEST = 1, // a block address: send me this block
    TAG_BLOCK,       // a block: address, then its bytes (a reply or a push)
    TAG_FREED,       // a block address: freed here, compute it yourself
    TAG_REPORT,      // to the map: frontiers of my leases
    TAG_FRONTIERS,   // from the map: every lease's frontier
    TAG_DONE,        // to the map: my blocks of every last version exist
    TAG_END,         // from the map: the job is done
    TAG_ABORT,       // to everyone: I failed with this code
    TAG_LEASES,      // from the map: the leases of the next period
    TAG_LOST         // from the map: a process is lost, who takes its chunks, from which replica
};

struct Message {
    int source = -1;
    int tag = 0;
    std::vector<char> bytes; // every tag but TAG_BLOCK
    char *block = nullptr;   // TAG_BLOCK: the whole message, in a buffer from the
    size_t block_size = 0;   // block allocator; the receiver owns it
};

class Channel {
public:
    Channel() = default;
    Channel(const Channel &) = delete;
    Channel &operator=(const Channel &) = delete;
    ~Channel();

    int open(MPI_Comm comm); // MPI_SUCCESS or an MPI error code
    int rank() const { return rank_; }
    int size() const { return size_; }

    int send(int dest, int tag, std::vector<char> bytes);
    // A block message sent from its own buffer, not copied: *pin counts the sends in
    // flight, and the buffer must stay until it is 0 again.
    int send_block(int dest, const char *message, size_t size, int *pin);
    // Where TAG_BLOCK messages are received (a buffer of the given size).
    void set_block_allocator(std::function<char *(size_t)> allocate) { allocate_ = std::move(allocate); }
    // *got is set when a message was received into *m.
    int poll(Message *m, bool *got);
    int progress(); // completes finished sends
    // The end: every process calls it once it sends nothing more. Receives every
    // message still addressed to this process, handing each to on_message.
    int drain(const std::function<void(const Message &)> &on_message);

    static void pause(); // the polite wait: 50 us asleep

private:
    struct Outgoing {
        std::vector<char> bytes;
        int *pin = nullptr;
    };
    void finished(Outgoing &o)
    {
        if (o.pin)
            --*o.pin;
    }
    std::function<char *(size_t)> allocate_;
    MPI_Comm comm_ = MPI_COMM_NULL;
    int rank_ = 0, size_ = 1;
    std::vector<MPI_Request> requests_;
    std::vector<Outgoing> outgoing_; // parallel to requests_
    std::vector<long long> sent_to_, received_from_;
};

// Byte packing of plain integers, for the messages' fixed parts.
void put_ints(std::vector<char> *bytes, const int *values, size_t count);
bool get_ints(const std::vector<char> &bytes, size_t *offset, int *values, size_t count);

} // namespace desync
