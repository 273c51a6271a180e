// messenger.h - the walk's point-to-point messages: nonblocking sends whose buffers
// live until they complete, probes, and the count of messages and bytes sent to each
// rank (the paper's heat map).
#ifndef PFTW_MESSENGER_H
#define PFTW_MESSENGER_H

#include <mpi.h>

#include <cstdint>
#include <list>
#include <string>
#include <vector>

namespace pftw {

enum Tag : int {
    kTagRequest = 1,   // "have you work for me?"      (empty)
    kTagWork = 2,      // the reply: serialized items   (empty: no work)
    kTagToken = 3,     // the termination token          (its colour)
    kTagDone = 4,      // rank 0 to all: the walk is over
    kTagStop = 5,      // a visit returned PFTW_STOP
    kTagProgress = 6,  // a rank's entries so far, to rank 0
};

class Messenger {
public:
    explicit Messenger(MPI_Comm comm, int size);
    // Sends payload to rank `to`. A synchronous send completes only once received:
    // used for messages nobody waits for, so that none is left unmatched at the end.
    bool send(int to, int tag, std::string payload, bool synchronous = false);
    // The next message waiting, if any.
    bool probe(MPI_Status *status);
    bool receive(const MPI_Status &status, std::string *payload);
    // Frees the buffers of completed sends; true when no send is outstanding.
    bool sends_completed(bool synchronous_only = false);
    bool complete_all_sends();

    const std::vector<uint64_t> &messages_to() const { return messages_to_; }
    const std::vector<uint64_t> &bytes_to() const { return bytes_to_; }
    bool failed() const { return failed_; }

private:
    struct PendingSend {
        MPI_Request request;
        std::string payload;
        bool synchronous;
    };
    MPI_Comm comm_;
    std::list<PendingSend> pending_;
    std::vector<uint64_t> messages_to_, bytes_to_;
    bool failed_ = false;
};

}  // namespace pftw
#endif
