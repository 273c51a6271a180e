// relocation.cpp - which copies may be executed in their original's place (see
// relocation.h).
#include "relocation.h"

#include "paths.h"
#include "syscalls.h"

#include <elf.h>
#include <string.h>

namespace piox_load {

namespace {

constexpr uint32_t kSetUserId = 04000, kSetGroupId = 02000;
constexpr uint64_t kAuxExecFn = 31, kAuxNull = 0;  // AT_EXECFN, AT_NULL

// A PT_INTERP among the program headers, within the `got` bytes read of the file's
// start, where linkers put them.
bool has_interpreter(const unsigned char *head, long got)
{
    Elf64_Ehdr header;
    if (got < long(sizeof header))
        return false;
    memcpy(&header, head, sizeof header);
    if (memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
        header.e_phentsize != sizeof(Elf64_Phdr) || header.e_phoff > uint64_t(got) ||
        header.e_phnum > (uint64_t(got) - header.e_phoff) / sizeof(Elf64_Phdr))
        return false;
    for (size_t i = 0; i < header.e_phnum; ++i) {
        Elf64_Phdr program_header;
        memcpy(&program_header, head + header.e_phoff + i * sizeof program_header, sizeof program_header);
        if (program_header.p_type == PT_INTERP)
            return true;
    }
    return false;
}

}  // namespace

bool starts_from_copy(const char *path)
{
    long fd = sys::open_read_only(path);
    if (fd < 0)
        return false;
    unsigned char head[4096];
    uint32_t mode = 0;
    long got = sys::file_mode(int(fd), &mode) == 0 ? sys::read(int(fd), head, sizeof head) : -1;
    sys::close(int(fd));
    return !(mode & (kSetUserId | kSetGroupId)) && has_interpreter(head, got);
}

void show_original_execfn(const char *mirror_root)
{
    long fd = sys::open_read_only("/proc/self/auxv");
    if (fd < 0)
        return;
    uint64_t pairs[128];  // (type, value) pairs: a few dozen, AT_NULL last
    long got = sys::read(int(fd), pairs, sizeof pairs);
    sys::close(int(fd));
    for (long i = 0; got > 0 && (i + 2) * long(sizeof pairs[0]) <= got && pairs[i] != kAuxNull; i += 2) {
        if (pairs[i] != kAuxExecFn)
            continue;
        if (char *name = reinterpret_cast<char *>(pairs[i + 1]))
            make_original(name, mirror_root);
        return;
    }
}

}  // namespace piox_load
