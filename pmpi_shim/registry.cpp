// The per-file state registry: see registry.h.
#include "registry.h"

#include <mutex>
#include <shared_mutex>
#include <unordered_map>

namespace piox::shim {

struct FileRegistry::Impl {
    mutable std::shared_mutex mutex;
    std::unordered_map<MPI_File, std::shared_ptr<FileRecord>> records;
};

FileRegistry::Impl &FileRegistry::impl() const
{
    static Impl state;
    return state;
}

void FileRegistry::add(MPI_File fh, std::shared_ptr<FileRecord> record)
{
    std::unique_lock lock(impl().mutex);
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

FileRegistry &file_registry()
{
    static FileRegistry registry;
    return registry;
}

}  // namespace piox::shim
