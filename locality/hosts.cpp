// hosts.cpp - this process's host name, and matching host names.
#include "hosts.h"

#include <mpi.h>
#include <strings.h>
#include <unistd.h>

#include <cstdlib>

namespace dli {

std::string this_host() {
    if (const char *forced = std::getenv("PIOX_HOSTNAME"); forced && *forced) return forced;
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) {
        char name[MPI_MAX_PROCESSOR_NAME];
        int length = 0;
        if (MPI_Get_processor_name(name, &length) == MPI_SUCCESS && length > 0)
            return std::string(name, length);
    }
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0) return "localhost";
    return name;
}

static std::string first_label(const std::string &name) { return name.substr(0, name.find('.')); }

bool same_host(const std::string &a, const std::string &b) {
    if (a.empty() || b.empty()) return false;
    if (a == every_host || b == every_host) return true;
    if (strcasecmp(a.c_str(), b.c_str()) == 0) return true;
    bool a_short = a.find('.') == std::string::npos, b_short = b.find('.') == std::string::npos;
    if (a_short == b_short) return false;  // two short names, or two qualified names, differ
    return strcasecmp(first_label(a).c_str(), first_label(b).c_str()) == 0;
}

}  // namespace dli
