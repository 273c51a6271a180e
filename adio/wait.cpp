// node_runnable_tasks (wait.h): how many tasks the node's CPUs have to run right now.
#include "wait.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include <fcntl.h>
#include <unistd.h>

namespace piox::adio {
namespace {

constexpr int64_t kRefreshNanoseconds = 1000000;  // a reading serves 1 ms of waits

int64_t now_nanoseconds()
{
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return int64_t(now.tv_sec) * 1000000000 + now.tv_nsec;
}

// "0.52 0.58 0.59 3/412 12345": the fourth field's numerator.
int read_runnable_tasks()
{
    const int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char text[128];
    const ssize_t got = read(fd, text, sizeof text - 1);
    close(fd);
    if (got <= 0)
        return 0;
    text[got] = '\0';
    const char *field = text;
    for (int skip = 0; skip < 3 && field != nullptr; skip++) {
        field = std::strchr(field, ' ');
        if (field != nullptr)
            field++;
    }
    return field != nullptr ? std::atoi(field) : 0;
}

std::atomic<int64_t> read_at{-kRefreshNanoseconds};  // the first call reads
std::atomic<int> last_reading{0};

}  // namespace

int node_runnable_tasks()
{
    // Threads of one process may race here; any of their readings will do.
    const int64_t now = now_nanoseconds();
    if (now - read_at.load(std::memory_order_relaxed) >= kRefreshNanoseconds) {
        last_reading.store(read_runnable_tasks(), std::memory_order_relaxed);
        read_at.store(now, std::memory_order_relaxed);
    }
    return last_reading.load(std::memory_order_relaxed);
}

}  // namespace piox::adio
