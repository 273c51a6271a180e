// PIOX_DEBUG logging: see include/piox_log.h.
#include "piox_log.h"

#include <mpi.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

bool env_flag(const char *name)
{
    const char *v = std::getenv(name);
    return v != nullptr && v[0] != '\0' && std::strcmp(v, "0") != 0;
}

void vprint(const char *format, va_list args)
{
    int initialized = 0, finalized = 0, rank = -1;
    PMPI_Initialized(&initialized);
    PMPI_Finalized(&finalized);
    if (initialized && !finalized)
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    // One write per line so that lines from different ranks do not interleave.
    char line[1024];
    int n = std::snprintf(line, sizeof line, "piox[%d]: ", rank);
    if (n < 0 || n >= static_cast<int>(sizeof line))
        n = 0;
    std::vsnprintf(line + n, sizeof line - static_cast<size_t>(n) - 1, format, args);
    std::fprintf(stderr, "%s\n", line);
}

}  // namespace

extern "C" int piox_debug_enabled(void)
{
    static const bool enabled = env_flag("PIOX_DEBUG");
    return enabled;
}

extern "C" void piox_debug(const char *format, ...)
{
    if (!piox_debug_enabled())
        return;
    va_list args;
    va_start(args, format);
    vprint(format, args);
    va_end(args);
}

extern "C" void piox_warn(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vprint(format, args);
    va_end(args);
}
