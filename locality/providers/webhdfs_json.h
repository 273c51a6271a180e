// webhdfs_json.h - reading the JSON bodies of WebHDFS answers, as Hadoop documents them
// (WebHDFS REST API, "JSON Schemas"), into libdli's types. Every function checks what
// it relies on: a missing member, a wrong type (a string where a number is, hosts not
// an array), a negative length or a body that is not JSON throws
// Error(DLI_ERR_PROTOCOL, SOURCE + ": " + what was wrong). Members it does not use
// are not looked at: Hadoop adds members over releases.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "chunk_table.h"

namespace dli {

// {"RemoteException":{"exception","javaClassName","message"}}: how a NameNode says
// why it failed. `found` is false when BODY is not that shape (HTML, empty, other JSON).
struct RemoteException {
    bool found = false;
    std::string exception;     // "FileNotFoundException"
    std::string java_class;    // "java.io.FileNotFoundException" ("" when absent)
    std::string message;       // ("" when absent)
};
RemoteException parse_remote_exception(const std::string &body);

// op=GETFILEBLOCKLOCATIONS (Hadoop 3.2+): {"BlockLocations":{"BlockLocation":[{"offset",
// "length","hosts":[...],...}]}}. The chunks are the blocks, hosts in replica order;
// file_size is where the last block ends (0 for no blocks: ask GETFILESTATUS).
// The table is checked (check_chunk_table): blocks must tile the file from byte 0.
ChunkTable parse_block_locations(const std::string &body, const std::string &source);

// op=GET_BLOCK_LOCATIONS (older NameNodes): {"LocatedBlocks":{"fileLength",
// "locatedBlocks":[{"startOffset","block":{"numBytes",...},"locations":[{"hostName",
// ...}],...}],...}}. file_size is fileLength; the table is checked.
ChunkTable parse_located_blocks(const std::string &body, const std::string &source);

// op=GETFILESTATUS: {"FileStatus":{"length","type":"FILE"|"DIRECTORY"|"SYMLINK",...}}.
struct FileStatus {
    int64_t length = 0;
    std::string type;
};
FileStatus parse_file_status(const std::string &body, const std::string &source);

// op=LISTSTATUS: {"FileStatuses":{"FileStatus":[{"pathSuffix","type",...}]}}.
// LISTSTATUS of a file answers with the file itself, its pathSuffix "".
struct DirectoryEntry {
    std::string suffix;
    std::string type;
};
std::vector<DirectoryEntry> parse_directory_listing(const std::string &body, const std::string &source);

}  // namespace dli
