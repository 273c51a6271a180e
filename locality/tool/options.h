// options.h - piox-locality's command line. Parsing is pure (no MPI, no storage) so
// every rank parses the same argv the same way.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace locality_tool {

struct Options {
    std::string file;
    std::vector<std::string> hosts;     // --hosts; empty: the hosts the chunk table names
    int ranks = 0;                      // --ranks; 0: one per host (or the job's own ranks)
    std::vector<double> speeds;         // --speeds, one per host; empty: all equal
    uint64_t seed = 1;                  // --seed
    std::vector<std::pair<std::string, std::string>> hints;  // --hint KEY=VALUE, in order
    int rows = 64;                      // --rows; 0: every chunk
    bool help = false;
};

// Fills options from argv; returns "" or the usage error (exit status 2). Does not print.
std::string parse_options(int argc, char **argv, Options &options);

const char *usage_text();

}  // namespace locality_tool
