#include "elf_dynamic.h"

#include <algorithm>
#include <cstring>
#include <elf.h>

namespace piox_load {

namespace {

bool is_elf64(const std::string& bytes, Elf64_Ehdr& header)
{
    if (bytes.size() < sizeof header)
        return false;
    memcpy(&header, bytes.data(), sizeof header);
    return memcmp(header.e_ident, ELFMAG, SELFMAG) == 0 && header.e_ident[EI_CLASS] == ELFCLASS64 &&
           header.e_ident[EI_DATA] == ELFDATA2LSB && header.e_machine == EM_X86_64;
}

std::vector<Elf64_Phdr> program_headers(const std::string& bytes, const Elf64_Ehdr& header)
{
    std::vector<Elf64_Phdr> headers;
    for (unsigned i = 0; i < header.e_phnum; i++) {
        uint64_t at = header.e_phoff + uint64_t{i} * header.e_phentsize;
        if (header.e_phentsize < sizeof(Elf64_Phdr) || at + sizeof(Elf64_Phdr) > bytes.size())
            break;
        Elf64_Phdr ph;
        memcpy(&ph, bytes.data() + at, sizeof ph);
        headers.push_back(ph);
    }
    return headers;
}

// The file offset of a virtual address, through the PT_LOAD segment holding it.
bool file_offset(const std::vector<Elf64_Phdr>& headers, uint64_t address, uint64_t& offset)
{
    for (const Elf64_Phdr& ph : headers) {
        if (ph.p_type == PT_LOAD && address >= ph.p_vaddr && address < ph.p_vaddr + ph.p_filesz) {
            offset = ph.p_offset + (address - ph.p_vaddr);
            return true;
        }
    }
    return false;
}

}  // namespace

std::vector<std::string> split_path_list(const std::string& list, const char* separators)
{
    std::vector<std::string> parts;
    size_t at = 0;
    while (true) {
        size_t end = list.find_first_of(separators, at);
        parts.push_back(list.substr(at, end == std::string::npos ? std::string::npos : end - at));
        if (end == std::string::npos)
            return parts;
        at = end + 1;
    }
}

bool is_loadable_object(const std::string& bytes)
{
    Elf64_Ehdr header;
    return is_elf64(bytes, header) && header.e_type == ET_DYN;
}

bool has_interpreter(const std::string& bytes)
{
    Elf64_Ehdr header;
    if (!is_elf64(bytes, header))
        return false;
    for (const Elf64_Phdr& ph : program_headers(bytes, header))
        if (ph.p_type == PT_INTERP)
            return true;
    return false;
}

std::vector<std::pair<uint64_t, uint64_t>> loaded_ranges(const std::string& bytes)
{
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    Elf64_Ehdr header;
    if (!is_elf64(bytes, header) || header.e_type != ET_DYN)
        return ranges;
    ranges.emplace_back(0, std::min<uint64_t>(bytes.size(), header.e_phoff +
                                              uint64_t{header.e_phnum} * header.e_phentsize));
    for (const Elf64_Phdr& ph : program_headers(bytes, header))
        if (ph.p_type == PT_LOAD && ph.p_filesz > 0)
            ranges.emplace_back(ph.p_offset, std::min<uint64_t>(bytes.size(), ph.p_offset + ph.p_filesz));
    return ranges;
}

DynamicInfo read_dynamic_info(const std::string& bytes)
{
    DynamicInfo info;
    Elf64_Ehdr header;
    if (!is_elf64(bytes, header))
        return info;
    std::vector<Elf64_Phdr> headers = program_headers(bytes, header);
    uint64_t strtab = 0, rpath = 0, runpath = 0;
    bool has_strtab = false, has_rpath = false;
    for (const Elf64_Phdr& ph : headers) {
        if (ph.p_type != PT_DYNAMIC)
            continue;
        for (uint64_t at = ph.p_offset; at + sizeof(Elf64_Dyn) <= ph.p_offset + ph.p_filesz &&
                                        at + sizeof(Elf64_Dyn) <= bytes.size();
             at += sizeof(Elf64_Dyn)) {
            Elf64_Dyn entry;
            memcpy(&entry, bytes.data() + at, sizeof entry);
            if (entry.d_tag == DT_NULL)
                break;
            if (entry.d_tag == DT_STRTAB)
                has_strtab = file_offset(headers, entry.d_un.d_ptr, strtab);
            else if (entry.d_tag == DT_RPATH)
                has_rpath = true, rpath = entry.d_un.d_val;
            else if (entry.d_tag == DT_RUNPATH)
                info.has_runpath = true, runpath = entry.d_un.d_val;
            else if (entry.d_tag == DT_FLAGS_1)
                info.nodeflib = (entry.d_un.d_val & DF_1_NODEFLIB) != 0;
        }
    }
    auto string_at = [&](uint64_t index) {
        uint64_t at = strtab + index;
        if (!has_strtab || at >= bytes.size())
            return std::string();
        return std::string(bytes.c_str() + at, strnlen(bytes.c_str() + at, bytes.size() - at));
    };
    if (info.has_runpath)
        info.runpath = split_path_list(string_at(runpath));
    else if (has_rpath)
        info.rpath = split_path_list(string_at(rpath));
    return info;
}

}  // namespace piox_load
