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
    const link_map *loader;
};

Slot slots[kSlots];
const link_map *last_requester = nullptr;

uint32_t home_of(const link_map *object)
{
    uint64_t key = reinterpret_cast<uintptr_t>(object);
    return uint32_t((key >> 4) * 0x9e3779b97f4a7c15ull >> 51) & (kSlots - 1);
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
    for (uint32_t i = home_of(object), tries = 0; tries < kSlots / 2; i = (i + 1) & (kSlots - 1), ++tries) {
        if (!slots[i].object || slots[i].object == object) {
            slots[i] = {object, last_requester};
            return;
        }
    }
}

const link_map *loader_of(const link_map *object)
{
    for (uint32_t i = home_of(object), tries = 0; tries < kSlots / 2; i = (i + 1) & (kSlots - 1), ++tries) {
        if (!slots[i].object)
            return nullptr;
        if (slots[i].object == object)
            return slots[i].loader;
    }
    return nullptr;
}

}  // namespace piox_load
