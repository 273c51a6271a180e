// map_file.h - the map-file format of the static provider (DLI_map.5): parsing text into
// chunk tables, strictly. Pure (no I/O beyond what the caller passes), so the fuzzer
// in bench/fuzz drives it directly.
#pragma once
#include <map>
#include <string>

#include "../chunk_table.h"

namespace dli {

// File name -> its chunk table. Throws Error(DLI_ERR_MAP, "SOURCE:LINE: what is wrong")
// for anything that does not follow DLI_map.5; never crashes on any bytes.
std::map<std::string, ChunkTable> parse_map(const std::string &text, const std::string &source);

// The longest line accepted, in bytes.
constexpr size_t kMaxMapLine = 65536;

}  // namespace dli
