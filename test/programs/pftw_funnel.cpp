/*
 * pftw_funnel.cpp - checks the pftw tool's funnel (ftw/tool/output.h) on real MPI:
 * every rank offers pieces of known bytes (empty ones, ones far longer than a chunk),
 * funnelled with a tiny chunk size; rank 0 checks that each sender's stream arrives
 * whole, in rank order, in chunks no larger than asked, each ended once.
 *
 *   pftw_funnel [CHUNK_BYTES]     (default 7)
 *
 * Prints "funnel ok" on rank 0 and exits 0, or says what went wrong and exits 1.
 */
#include "output.h"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

// Rank r's pieces: a short one, an empty one, and one of 1000 * (r + 1) bytes.
std::vector<std::string> pieces_of(int rank) {
    std::string longer;
    for (int i = 0; i < 1000 * (rank + 1); ++i)
        longer.push_back(char('a' + (i + rank) % 26));
    return {"rank " + std::to_string(rank) + "\n", "", longer, std::string(1, '\0')};
}

std::string stream_of(int rank) {
    std::string stream;
    for (const std::string &piece : pieces_of(rank))
        stream += piece;
    return stream;
}

}  // namespace

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const size_t chunk = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 7;

    const std::vector<std::string> mine = pieces_of(rank);
    const std::vector<std::string_view> views(mine.begin(), mine.end());
    std::vector<std::string> received(static_cast<size_t>(size));
    std::vector<int> ends(size_t(size), 0);
    std::string problem;
    int expected_sender = 0;
    const int rc = pftw_tool::funnel_to_root(MPI_COMM_WORLD, views,
        [&](int sender, const char *data, size_t bytes) {
            if (sender != expected_sender && problem.empty())
                problem = "sender " + std::to_string(sender) + " came out of order";
            if (sender != 0 && bytes > chunk && problem.empty())
                problem = "a chunk of " + std::to_string(bytes) + " bytes from " + std::to_string(sender);
            if (bytes == 0) {
                ++ends[size_t(sender)];
                ++expected_sender;
            } else {
                received[size_t(sender)].append(data, bytes);
            }
        }, chunk);

    int status = 0;
    if (rank == 0) {
        if (rc != MPI_SUCCESS)
            problem = "funnel_to_root returned " + std::to_string(rc);
        for (int sender = 0; sender < size && problem.empty(); ++sender) {
            if (received[size_t(sender)] != stream_of(sender))
                problem = "rank " + std::to_string(sender) + "'s stream differs";
            else if (ends[size_t(sender)] != 1)
                problem = "rank " + std::to_string(sender) + "'s stream ended " +
                          std::to_string(ends[size_t(sender)]) + " times";
        }
        std::printf("%s\n", problem.empty() ? "funnel ok" : ("funnel FAILED: " + problem).c_str());
        status = problem.empty() ? 0 : 1;
    } else if (rc != MPI_SUCCESS) {
        status = 1;
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
