// symbols.cpp - lookups in the loaded objects' GNU hash tables (see symbols.h).
//
// The layout is the GNU hash section's (DT_GNU_HASH; Debian's libc has no DT_HASH):
// nbuckets, symoffset, bloom words, bloom shift, the bloom filter, the buckets, then
// one chain word per symbol from symoffset on, whose low bit ends a chain.
#include "symbols.h"

#include "text.h"

#include <elf.h>
#include <stdint.h>

namespace piox_load {

namespace {

const link_map *libc_map = nullptr;

uint32_t gnu_hash(const char *name)
{
    uint32_t hash = 5381;
    for (const unsigned char *c = reinterpret_cast<const unsigned char *>(name); *c; ++c)
        hash = hash * 33 + *c;
    return hash;
}

// A dynamic entry's address: glibc relocates them in place when the section is
// writable (l_addr added), and leaves them as offsets when it is not.
uintptr_t address_of(const link_map *map, ElfW(Addr) pointer)
{
    return pointer < map->l_addr ? map->l_addr + pointer : pointer;
}

// `map`'s definition of `name`, or nullptr.
void *symbol_in(const link_map *map, const char *name)
{
    if (!map->l_ld)
        return nullptr;
    const uint32_t *hash_table = nullptr;
    const ElfW(Sym) *symbols = nullptr;
    const char *strings = nullptr;
    const uint16_t *versions = nullptr;  // per symbol; 0x8000 marks a hidden (non-default) version
    for (const ElfW(Dyn) *entry = map->l_ld; entry->d_tag != DT_NULL; ++entry) {
        if (entry->d_tag == DT_GNU_HASH)
            hash_table = reinterpret_cast<const uint32_t *>(address_of(map, entry->d_un.d_ptr));
        else if (entry->d_tag == DT_SYMTAB)
            symbols = reinterpret_cast<const ElfW(Sym) *>(address_of(map, entry->d_un.d_ptr));
        else if (entry->d_tag == DT_STRTAB)
            strings = reinterpret_cast<const char *>(address_of(map, entry->d_un.d_ptr));
        else if (entry->d_tag == DT_VERSYM)
            versions = reinterpret_cast<const uint16_t *>(address_of(map, entry->d_un.d_ptr));
    }
    if (!hash_table || !symbols || !strings)
        return nullptr;
    uint32_t bucket_count = hash_table[0], first_symbol = hash_table[1], bloom_words = hash_table[2];
    if (bucket_count == 0)
        return nullptr;
    const uint32_t *buckets = hash_table + 4 + bloom_words * (sizeof(ElfW(Addr)) / 4);
    const uint32_t *chains = buckets + bucket_count;
    uint32_t hash = gnu_hash(name);
    for (uint32_t index = buckets[hash % bucket_count]; index >= first_symbol && index != 0; ++index) {
        uint32_t chain_hash = chains[index - first_symbol];
        const ElfW(Sym) &symbol = symbols[index];
        bool default_version = !versions || !(versions[index] & 0x8000);
        if ((chain_hash | 1) == (hash | 1) && symbol.st_shndx != SHN_UNDEF && default_version &&
            same(strings + symbol.st_name, name))
            return reinterpret_cast<void *>(map->l_addr + symbol.st_value);
        if (chain_hash & 1)
            break;
    }
    return nullptr;
}

}  // namespace

void note_libc(const link_map *libc) { libc_map = libc; }

void *libc_symbol(const char *name) { return libc_map ? symbol_in(libc_map, name) : nullptr; }

void *global_symbol(const char *name)
{
    if (!libc_map)
        return nullptr;
    const link_map *first = libc_map;
    while (first->l_prev)
        first = first->l_prev;
    for (const link_map *map = first; map; map = map->l_next)
        if (void *found = symbol_in(map, name))
            return found;
    return nullptr;
}

}  // namespace piox_load
