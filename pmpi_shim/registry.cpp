// The per-file state registry: see registry.h.
#include "registry.h"

#include <cstdint>
#include <deque>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

namespace piox::shim {

namespace {
constexpr size_t kRememberedCloses = 1024;
}

struct FileRegistry::Impl {
    mutable std::shared_mutex mutex;
    std::unordered_map<MPI_File, std::shared_ptr<FileRecord>> records;
    // Handles of closed files, each with the number of its close, for an O(1) lookup
    // on the call path of files piox does not manage. close_order bounds the memory:
    // oldest first, at most kRememberedCloses.
    std::unordered_map<MPI_File, uint64_t> closed;
    std::deque<std::pair<MPI_File, uint64_t>> close_order;
    uint64_t closes = 0;

    void remember_close(MPI_File fh)
    {
        closed[fh] = ++closes;
        close_order.emplace_back(fh, closes);
        if (close_order.size() > kRememberedCloses) {
            auto [oldest, number] = close_order.front();
            close_order.pop_front();
            auto found = closed.find(oldest);
            if (found != closed.end() && found->second == number)  // not closed again since
                closed.erase(found);
        }
    }
};

FileRegistry::Impl &FileRegistry::impl() const
{
    static Impl state;
    return state;
}

void FileRegistry::add(MPI_File fh, std::shared_ptr<FileRecord> record)
{
    std::unique_lock lock(impl().mutex);
    impl().closed.erase(fh);  // the library reused the handle of a closed file
    impl().records[fh] = std::move(record);
}

std::shared_ptr<FileRecord> FileRegistry::find(MPI_File fh) const
{
    std::shared_lock lock(impl().mutex);
    auto found = impl().records.find(fh);
    return found == impl().records.end() ? nullptr : found->second;
}

std::shared_ptr<FileRecord> FileRegistry::remove(MPI_File fh)
{
    std::unique_lock lock(impl().mutex);
    auto found = impl().records.find(fh);
    if (found == impl().records.end())
        return nullptr;
    auto record = std::move(found->second);
    impl().records.erase(found);
    impl().remember_close(fh);
    return record;
}

std::vector<std::shared_ptr<FileRecord>> FileRegistry::remove_all()
{
    std::unique_lock lock(impl().mutex);
    std::vector<std::shared_ptr<FileRecord>> all;
    for (auto &entry : impl().records)
        all.push_back(std::move(entry.second));
    impl().records.clear();
    return all;
}

bool FileRegistry::was_closed(MPI_File fh) const
{
    std::shared_lock lock(impl().mutex);
    return impl().closed.count(fh) != 0;
}

FileRegistry &file_registry()
{
    static FileRegistry registry;
    return registry;
}

}  // namespace piox::shim
