// work_item.cpp - open directory handles and the wire format of work items.
#include "work_item.h"

#include <cstring>

#include <unistd.h>

namespace pftw {

OpenDirectory::OpenDirectory(int fd, std::atomic<int> *open_count) : fd_(fd), open_count_(open_count)
{
    open_count_->fetch_add(1, std::memory_order_relaxed);
}

OpenDirectory::~OpenDirectory()
{
    close(fd_);
    open_count_->fetch_sub(1, std::memory_order_relaxed);
}

namespace {

void put_u32(std::string *buffer, uint32_t value) { buffer->append(reinterpret_cast<const char *>(&value), 4); }

struct Reader {
    const char *at;
    const char *end;
    bool get_u32(uint32_t *value)
    {
        if (end - at < 4)
            return false;
        std::memcpy(value, at, 4);
        at += 4;
        return true;
    }
    bool get_bytes(size_t size, std::string *out)
    {
        if (static_cast<size_t>(end - at) < size)
            return false;
        out->assign(at, size);
        at += size;
        return true;
    }
};

}  // namespace

void serialize_items(const std::vector<WorkItem> &items, std::string *buffer)
{
    for (const WorkItem &item : items) {
        buffer->push_back(static_cast<char>(item.kind));
        put_u32(buffer, static_cast<uint32_t>(item.depth));
        put_u32(buffer, static_cast<uint32_t>(item.path.size()));
        buffer->append(item.path);
        if (item.kind == WorkItem::Kind::directory) {
            put_u32(buffer, item.name_offset);
        } else {
            put_u32(buffer, static_cast<uint32_t>(item.types.size()));
            put_u32(buffer, static_cast<uint32_t>(item.names.size()));
            buffer->append(item.names);
            buffer->append(reinterpret_cast<const char *>(item.types.data()), item.types.size());
        }
    }
}

bool deserialize_items(const char *data, size_t size, std::vector<WorkItem> *items)
{
    Reader in{data, data + size};
    while (in.at < in.end) {
        WorkItem item;
        uint8_t kind = static_cast<uint8_t>(*in.at++);
        uint32_t depth, path_size;
        if (!in.get_u32(&depth) || !in.get_u32(&path_size) || !in.get_bytes(path_size, &item.path))
            return false;
        item.depth = static_cast<int>(depth);
        if (kind == static_cast<uint8_t>(WorkItem::Kind::directory)) {
            item.kind = WorkItem::Kind::directory;
            if (!in.get_u32(&item.name_offset) || item.name_offset > item.path.size())
                return false;
        } else if (kind == static_cast<uint8_t>(WorkItem::Kind::names)) {
            item.kind = WorkItem::Kind::names;
            uint32_t count, names_size;
            std::string types;
            if (!in.get_u32(&count) || !in.get_u32(&names_size) ||
                !in.get_bytes(names_size, &item.names) || !in.get_bytes(count, &types))
                return false;
            item.types.assign(types.begin(), types.end());
        } else {
            return false;
        }
        items->push_back(std::move(item));
    }
    return true;
}

WorkItem split_names(WorkItem *batch, size_t keep_from)
{
    WorkItem front;
    front.kind = WorkItem::Kind::names;
    front.depth = batch->depth;
    front.path = batch->path;
    front.parent = batch->parent;
    size_t offset = 0;
    for (size_t i = 0; i < keep_from; i++)
        offset += std::strlen(batch->names.c_str() + offset) + 1;
    front.names = batch->names.substr(0, offset);
    batch->names.erase(0, offset);
    front.types.assign(batch->types.begin(), batch->types.begin() + keep_from);
    batch->types.erase(batch->types.begin(), batch->types.begin() + keep_from);
    return front;
}

}  // namespace pftw
