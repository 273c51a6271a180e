// ancestry.cpp - see ancestry.h. A fixed open-addressing table: the client has no
// allocator, and a process maps hundreds of objects, not thousands (past the table's
// size an object's loader is simply not known, and the server replays less).
#include "ancestry.h"

#include <stdint.h>

namespace piox_load {

namespace {

constexpr uint32_t kSlots = 8192;  // a power of two

struct Slot {
    const link_map *object;
    const link_map *rpath_loader;  // the nearest of its loaders with a DT_RPATH
};

Slot slots[kSlots];
const link_map *last_requester = nullptr;

uint32_t home_of(const link_map *object)
{
    uint64_t key = reinterpret_cast<uintptr_t>(object);
    return uint32_t((key >> 4) * 0x9e3779b97f4a7c15ull >> 51) & (kSlots - 1);
}

// Whether the object has a DT_RPATH that glibc uses (none when it has DT_RUNPATH).
bool has_rpath(const link_map *object)
{
    bool rpath = false;
    for (const ElfW(Dyn) *entry = object->l_ld; entry && entry->d_tag != DT_NULL; ++entry) {
        if (entry->d_tag == DT_RUNPATH)
            return false;
        rpath = rpath || entry->d_tag == DT_RPATH;
    }
    return rpath;
}

// The slot that holds `object`, or the empty one where it would go; nullptr when the
// probe finds neither (the table is full around its home).
Slot *probe(const link_map *object)
{
    for (uint32_t i = home_of(object), tries = 0; tries < kSlots / 2; i = (i + 1) & (kSlots - 1), ++tries) {
        if (!slots[i].object || slots[i].object == object)
            return &slots[i];
    }
    return nullptr;
}

// `object` if it has a DT_RPATH, else the nearest of its loaders that has one; never
// the executable (its DT_RPATH is the search's own, not a loader's).
const link_map *nearest_rpath(const link_map *object)
{
    if (!object || !object->l_name || !*object->l_name)
        return nullptr;
    if (has_rpath(object))
        return object;
    return rpath_loader_of(object);
}

}  // namespace

void note_search_by(const link_map *requester)
{
    last_requester = requester;
}

void note_opened(const link_map *object)
{
    if (!last_requester || last_requester == object)
        return;
    if (Slot *slot = probe(object))
        *slot = {object, nearest_rpath(last_requester)};
}

const link_map *rpath_loader_of(const link_map *object)
{
    const Slot *slot = probe(object);
    return slot && slot->object == object ? slot->rpath_loader : nullptr;
}

}  // namespace piox_load
