// The per-file state registry: see registry.h.
#include "registry.h"

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
    std::deque<MPI_File> closed;  // oldest first, at most kRememberedCloses

    void forget_closed(MPI_File fh)
    {
        for (auto it = closed.begin(); it != closed.end();)
            it = *it == fh ? closed.erase(it) : it + 1;
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
    impl().forget_closed(fh);  // the library reused the handle of a closed file
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
    impl().closed.push_back(fh);
    if (impl().closed.size() > kRememberedCloses)
        impl().closed.pop_front();
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
    for (MPI_File closed : impl().closed)
        if (closed == fh)
            return true;
    return false;
}

FileRegistry &file_registry()
{
    static FileRegistry registry;
    return registry;
}

}  // namespace piox::shim
