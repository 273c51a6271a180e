// options.h - the pftw_* hints of one walk, parsed from an MPI_Info.
#ifndef PFTW_OPTIONS_H
#define PFTW_OPTIONS_H

#include <mpi.h>

#include <string>

namespace pftw {

enum class Algorithm { drqs, pa_drqs, h_drqs };
enum class Split { random, equal };

struct WalkOptions {
    Algorithm algorithm = Algorithm::h_drqs;
    int threads = 0;          // 0: the algorithm's default, settled by resolve_threads
    Split split = Split::random;
    bool stat = false;
    bool xdev = false;
    int max_depth = -1;       // -1: unlimited

    // One line naming every setting, identical on ranks that agree (for the check
    // that all ranks passed the same hints).
    std::string fingerprint() const;
};

const char *algorithm_name(Algorithm algorithm);
const char *split_name(Split split);

// Reads the pftw_* hints of info (MPI_INFO_NULL: the defaults). On a value that
// cannot be used, returns false and says which in *problem.
bool parse_options(MPI_Info info, WalkOptions *options, std::string *problem);

}  // namespace pftw
#endif
