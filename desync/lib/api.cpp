// api.cpp - the C entry points: argument checks, the job this process is running
// (one at a time: the routines are called from inside its callbacks), the last error.
#include "desync.h"
#include "job.h"
#include "runtime.h"

#include <cstdint>
#include <functional>
#include <string>

using desync::Address;
using desync::Runtime;

namespace {

Runtime *running = nullptr;
int last_error = DESYNC_SUCCESS;
std::string last_message;

int failed(int code, const std::string &message)
{
    last_error = code;
    last_message = message;
    return code;
}

// The running job and the address, or a code (recorded) when either is missing.
int enter(const blockaddr *b, Address *a, const char *routine)
{
    if (!running)
        return failed(DESYNC_ERR_NOT_RUNNING, std::string(routine) + " called outside desynch_Run");
    if (!b)
        return failed(DESYNC_ERR_ARG, std::string(routine) + ": NULL block address");
    if (!Address::from(b, a))
        return failed(DESYNC_ERR_ADDRESS, std::string(routine) + ": a block address needs 2 to " +
                                              std::to_string(DESYNCH_MAX_DIMS) + " integers");
    int rc = running->check(*a);
    return rc == DESYNC_SUCCESS ? rc : failed(rc, std::string(routine) + ": " + running->last_message());
}

int from_runtime(int rc, const char *routine)
{
    return rc == DESYNC_SUCCESS ? rc : failed(rc, std::string(routine) + ": " + running->last_message());
}

} // namespace

extern "C" {

void *desynchBlockMake(size_t blocksize)
{
    if (!running) {
        failed(DESYNC_ERR_NOT_RUNNING, "desynchBlockMake called outside desynch_Run");
        return nullptr;
    }
    void *p = running->make(blocksize);
    if (!p)
        failed(DESYNC_ERR_NOMEM, "desynchBlockMake: no memory for " + std::to_string(blocksize) + " bytes");
    return p;
}

int desynchBlockExists(const blockaddr *baddr)
{
    Address a;
    return enter(baddr, &a, "desynchBlockExists") == DESYNC_SUCCESS && running->exists(a);
}

rd_handle desynchBlockRead(const blockaddr *baddr, const void **bufp, size_t *lenp)
{
    Address a;
    if (enter(baddr, &a, "desynchBlockRead") != DESYNC_SUCCESS)
        return nullptr;
    if (!bufp || !lenp) {
        failed(DESYNC_ERR_ARG, "desynchBlockRead: NULL bufp or lenp");
        return nullptr;
    }
    rd_handle handle = nullptr;
    return from_runtime(running->read(a, bufp, lenp, &handle), "desynchBlockRead") == DESYNC_SUCCESS ? handle
                                                                                                     : nullptr;
}

int desynchBlockWrite(const blockaddr *baddr, void *data, size_t len)
{
    Address a;
    int rc = enter(baddr, &a, "desynchBlockWrite");
    return rc != DESYNC_SUCCESS ? rc : from_runtime(running->write(a, data, len), "desynchBlockWrite");
}

int desynchBlockMostRecent(const blockaddr *baddr1, blockaddr *baddr2)
{
    Address a, found;
    if (enter(baddr1, &a, "desynchBlockMostRecent") != DESYNC_SUCCESS)
        return 0;
    if (!baddr2 || !baddr2->dims) {
        failed(DESYNC_ERR_ARG, "desynchBlockMostRecent: NULL baddr2 or baddr2->dims");
        return 0;
    }
    if (!running->most_recent(a, &found))
        return 0;
    found.to(baddr2);
    return 1;
}

int desynchBlockFree(rd_handle dp)
{
    if (!running)
        return failed(DESYNC_ERR_NOT_RUNNING, "desynchBlockFree called outside desynch_Run");
    return from_runtime(running->free_handle(dp), "desynchBlockFree");
}

int desynch_Run(MPI_Comm comm, MPI_Info info, const desynch_app *app, desynch_stats *stats)
{
    if (running)
        return failed(DESYNC_ERR_ARG, "desynch_Run: a job is already running on this process");
    if (comm == MPI_COMM_NULL)
        return failed(DESYNC_ERR_ARG, "desynch_Run: MPI_COMM_NULL");
    int inter = 0, size = 0;
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return failed(DESYNC_ERR_ARG, "desynch_Run: an intracommunicator is needed");
    MPI_Comm_size(comm, &size);
    // Every rank checks the same things, so that every rank fails alike (no rank is
    // left waiting in a collective its peers skipped).
    int rc = DESYNC_SUCCESS;
    std::string why;
    if (!app || !app->appDepList || !app->appCompute || !app->appIterInit || !app->appIterNext ||
        !app->appIterDone) {
        rc = DESYNC_ERR_ARG;
        why = "desynch_Run: the application table lacks a callback (only appResult may be NULL)";
    }
    desync::Job job;
    if (rc == DESYNC_SUCCESS && (rc = desync::parse_job(info, size, &job, &why)) != DESYNC_SUCCESS)
        why = "desynch_Run: " + why;
    // The same job on every rank: compare a hash of its canonical text.
    unsigned long long hash = rc == DESYNC_SUCCESS ? std::hash<std::string>()(job.canonical()) : 0, low = 0, high = 0;
    int worst = rc;
    if (MPI_Allreduce(&hash, &low, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm) != MPI_SUCCESS ||
        MPI_Allreduce(&hash, &high, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm) != MPI_SUCCESS ||
        MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return failed(DESYNC_ERR_MPI, "desynch_Run: agreeing on the job failed");
    if (rc != DESYNC_SUCCESS)
        return failed(rc, why);
    if (worst != DESYNC_SUCCESS)
        return failed(DESYNC_ERR_OTHER_RANK, "desynch_Run: another rank refused the job (its message says why)");
    if (low != high)
        return failed(DESYNC_ERR_HINT, "desynch_Run: ranks passed different job descriptions");

    Runtime runtime(app, job);
    running = &runtime;
    rc = runtime.run(comm, stats, &why);
    running = nullptr;
    return rc == DESYNC_SUCCESS ? rc : failed(rc, "desynch_Run: " + why);
}

int desynch_Last_error(void)
{
    return last_error;
}

const char *desynch_Last_message(void)
{
    return last_message.c_str();
}

const char *desynch_Error_string(int code)
{
    switch (code) {
    case DESYNC_SUCCESS: return "success";
    case DESYNC_ERR_ARG: return "invalid argument";
    case DESYNC_ERR_HINT: return "invalid or unavailable desync_* hint";
    case DESYNC_ERR_NOT_RUNNING: return "no DesyncFS job is running on this process";
    case DESYNC_ERR_ADDRESS: return "block address outside every file of the job";
    case DESYNC_ERR_HANDLE: return "not a live read handle";
    case DESYNC_ERR_BUFFER: return "not an unwritten buffer from desynchBlockMake";
    case DESYNC_ERR_NOT_MADE: return "block not made here yet: missing from the backward dependencies";
    case DESYNC_ERR_CONFLICT: return "block written twice with different bytes";
    case DESYNC_ERR_APP: return "an application callback broke its contract";
    case DESYNC_ERR_MPI: return "an MPI call failed";
    case DESYNC_ERR_NOMEM: return "out of memory";
    case DESYNC_ERR_OTHER_RANK: return "another rank failed";
    case DESYNC_ERR_IO: return "the checkpoint file could not be read or written, or is damaged";
    default: return "unknown desync error code";
    }
}

} // extern "C"
