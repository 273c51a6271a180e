// map_fuzzer.cpp - libFuzzer target for libdli's map-file parser (DLI_map.5). Any bytes
// must parse into chunk tables that tile their files, or fail with DLI_ERR_MAP: never a
// crash, a hang, undefined behaviour or another kind of error.
#include <cstdlib>
#include <string>

#include "chunk_table.h"
#include "error.h"
#include "providers/map_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    std::string text(reinterpret_cast<const char *>(data), size);
    try {
        for (const auto &[name, table] : dli::parse_map(text, "fuzz")) {
            if (name.empty() || name != table.file) std::abort();
            dli::check_chunk_table(table, DLI_ERR_MAP, "fuzz");  // what the parser promises
        }
    } catch (const dli::Error &e) {
        if (e.code() != DLI_ERR_MAP) std::abort();
    }
    return 0;
}
