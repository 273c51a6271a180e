// What the loader reads from a shared object's dynamic section to search for its
// dependencies: DT_RPATH, DT_RUNPATH and DF_1_NODEFLIB. Parsed from the file's bytes
// (the server holds them), so the client sends only the requester's path.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace piox_load {

struct DynamicInfo {
    std::vector<std::string> rpath;    // empty when DT_RUNPATH is present (glibc ignores it then)
    std::vector<std::string> runpath;
    bool has_runpath = false;
    bool nodeflib = false;             // DF_1_NODEFLIB: no ld.so.cache, no system directories
};

// True when the loader of this machine would map `bytes` as a shared object (glibc's
// open_verify: ELF, 64-bit, little-endian, x86-64, ET_DYN); a file it would skip
// lets the search go on.
bool is_loadable_object(const std::string& bytes);

// True when `bytes` is an ELF program the kernel hands to an interpreter (a PT_INTERP:
// a dynamically linked executable, PIE or not).
bool has_interpreter(const std::string& bytes);

// What of a shared object the loader reads: the ELF header and program headers, and
// each PT_LOAD segment's bytes in the file, as [offset, end) ranges; empty when
// `bytes` is not a loadable object. A copy holding only these loads as the whole.
std::vector<std::pair<uint64_t, uint64_t>> loaded_ranges(const std::string& bytes);

// A search path split at any of `separators` (":" in a run path; ":;" in
// LD_LIBRARY_PATH), empty entries kept.
std::vector<std::string> split_path_list(const std::string& list, const char* separators = ":");

// The dynamic information of an ELF file (an executable or a shared object); empty
// when it has none or is not ELF.
DynamicInfo read_dynamic_info(const std::string& bytes);

}  // namespace piox_load
