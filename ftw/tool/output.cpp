// output.cpp - the funnel to rank 0 and rank 0's stdout.
#include "output.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace pftw_tool {
namespace {

constexpr int funnel_tag = 7071;

int send_stream(MPI_Comm comm, const std::vector<std::string_view> &pieces, size_t chunk_bytes) {
    for (const std::string_view piece : pieces) {
        for (size_t at = 0; at < piece.size(); at += chunk_bytes) {
            const size_t size = std::min(chunk_bytes, piece.size() - at);
            const int rc = MPI_Send(piece.data() + at, int(size), MPI_BYTE, 0, funnel_tag, comm);
            if (rc != MPI_SUCCESS)
                return rc;
        }
    }
    // An empty message ends the stream.
    return MPI_Send(nullptr, 0, MPI_BYTE, 0, funnel_tag, comm);
}

int receive_stream(MPI_Comm comm, int sender, std::string &buffer, const ChunkSink &sink) {
    for (;;) {
        MPI_Status status;
        int rc = MPI_Probe(sender, funnel_tag, comm, &status);
        int size = 0;
        if (rc == MPI_SUCCESS)
            rc = MPI_Get_count(&status, MPI_BYTE, &size);
        if (rc != MPI_SUCCESS)
            return rc;
        buffer.resize(size_t(size));
        rc = MPI_Recv(buffer.data(), size, MPI_BYTE, sender, funnel_tag, comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
        sink(sender, buffer.data(), buffer.size());
        if (size == 0)
            return MPI_SUCCESS;
    }
}

bool stdout_failed = false;

}  // namespace

int funnel_to_root(MPI_Comm comm, const std::vector<std::string_view> &pieces,
                   const ChunkSink &sink, size_t chunk_bytes) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank != 0)
        return send_stream(comm, pieces, chunk_bytes);
    for (const std::string_view piece : pieces)
        if (!piece.empty())
            sink(0, piece.data(), piece.size());
    sink(0, nullptr, 0);
    // Streams are taken whole, one sender after another, so a record split between
    // two chunks is never separated by another rank's bytes.
    std::string buffer;
    for (int sender = 1; sender < size; ++sender) {
        const int rc = receive_stream(comm, sender, buffer, sink);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

bool write_stdout(const char *data, size_t size) {
    if (size && std::fwrite(data, 1, size, stdout) != size)
        stdout_failed = true;
    return !stdout_failed;
}

bool flush_stdout() {
    if (std::fflush(stdout) != 0 || std::ferror(stdout))
        stdout_failed = true;
    return !stdout_failed;
}

}  // namespace pftw_tool
