// api.cpp - the C entry points: check arguments, call into the session and providers,
// turn a dli::Error into its code and DLI_last_error's message.
#include <algorithm>
#include <cstring>
#include <new>

#include "buffers.h"
#include "dli.h"
#include "error.h"
#include "hosts.h"
#include "session.h"

using dli::Error;
using dli::guarded;

namespace {

void require(bool ok, const char *what) {
    if (!ok) throw Error(DLI_ERR_ARG, what);
}

std::string checked_name(const char *name, const char *what) {
    require(name != nullptr, what);
    require(*name != '\0', what);
    return name;
}

std::vector<std::string> process_list(const char **processes) {
    require(processes != nullptr, "processes is NULL");
    std::vector<std::string> out;
    for (const char **p = processes; *p; ++p) {
        require(**p != '\0', "an empty process name");
        out.emplace_back(*p);
    }
    return out;
}

}  // namespace

extern "C" {

int DLI_Init(MPI_Comm comm, MPI_Info info) {
    return guarded("DLI_Init", [&] { dli::Session::get().init(comm, info); });
}

int DLI_Load(const char *name) {
    return guarded("DLI_Load", [&] { dli::Session::get().load(checked_name(name, "name is NULL or empty")); });
}

int DLI_Finalize(void) {
    return guarded("DLI_Finalize", [&] { dli::Session::get().finalize(); });
}

int DLI_map_chunks_comm(MPI_Comm comm, MPI_Info info, const char *file, DLI_Chunk_map **map) {
    return guarded("DLI_map_chunks_comm", [&] {
        require(comm != MPI_COMM_NULL, "comm is MPI_COMM_NULL");
        // Checked alike on every rank, before any collective step.
        std::string name = checked_name(file, "file is NULL or empty");
        require(map != nullptr, "map is NULL");
        dli::Config config = dli::agreed_config(comm, info);
        std::vector<std::string> hosts = dli::gather_hosts(comm);
        *map = dli::pack_chunk_map(dli::load_collectively(comm, hosts, name, config), hosts);
    });
}

int DLI_map_process_chunks(const char *file, const char *process, DLI_Chunk_list **chunks) {
    return guarded("DLI_map_process_chunks", [&] {
        std::string name = checked_name(file, "file is NULL or empty");
        std::string host = checked_name(process, "process is NULL or empty");
        require(chunks != nullptr, "chunks is NULL");
        auto table = dli::Session::get().table(name);
        *chunks = dli::pack_chunk_list(*table, dli::chunks_local_to(*table, host));
    });
}

int DLI_map_chunks_process(const char *file, const char **processes, DLI_Chunk_map **map) {
    return guarded("DLI_map_chunks_process", [&] {
        std::string name = checked_name(file, "file is NULL or empty");
        std::vector<std::string> hosts = process_list(processes);
        require(map != nullptr, "map is NULL");
        *map = dli::pack_chunk_map(*dli::Session::get().table(name), hosts);
    });
}

int DLI_map_Dprocess_Dchunks(const char *directory, const char **processes, DLI_Directory_map **map) {
    return guarded("DLI_map_Dprocess_Dchunks", [&] {
        std::string name = checked_name(directory, "directory is NULL or empty");
        std::vector<std::string> hosts = process_list(processes);
        require(map != nullptr, "map is NULL");
        dli::Session &session = dli::Session::get();
        std::vector<dli::ChunkTable> tables;
        for (const std::string &file : session.list_directory(name)) tables.push_back(*session.table(file));
        *map = dli::pack_directory_map(name, tables, hosts);
    });
}

int DLI_get_total_chunks(const char *file, const char *process, int *count) {
    return guarded("DLI_get_total_chunks", [&] {
        std::string name = checked_name(file, "file is NULL or empty");
        std::string host = checked_name(process, "process is NULL or empty");
        require(count != nullptr, "count is NULL");
        *count = static_cast<int>(dli::chunks_local_to(*dli::Session::get().table(name), host).size());
    });
}

int DLI_get_data_percentage(const char *file, const char *process, double *percentage) {
    return guarded("DLI_get_data_percentage", [&] {
        std::string name = checked_name(file, "file is NULL or empty");
        std::string host = checked_name(process, "process is NULL or empty");
        require(percentage != nullptr, "percentage is NULL");
        auto shared = dli::Session::get().table(name);
        const dli::ChunkTable &table = *shared;
        int64_t local = 0;
        for (int i : dli::chunks_local_to(table, host)) local += table.chunks[static_cast<size_t>(i)].length;
        // An empty file has no bytes to be away from: all of it is local.
        *percentage = table.file_size ? 100.0 * static_cast<double>(local) / static_cast<double>(table.file_size)
                                      : 100.0;
    });
}

int DLI_check_data(const char *file, const size_t *offset, bool *local) {
    return guarded("DLI_check_data", [&] {
        std::string name = checked_name(file, "file is NULL or empty");
        require(offset != nullptr, "offset is NULL");
        require(local != nullptr, "local is NULL");
        auto shared = dli::Session::get().table(name);
        const dli::ChunkTable &table = *shared;
        if (*offset >= static_cast<uint64_t>(table.file_size))
            throw Error(DLI_ERR_ARG, name + ": offset " + std::to_string(*offset) + " is past the end (" +
                                         std::to_string(table.file_size) + " bytes)");
        auto chunk = std::upper_bound(table.chunks.begin(), table.chunks.end(), static_cast<int64_t>(*offset),
                                      [](int64_t at, const dli::Chunk &c) { return at < c.offset; }) - 1;
        std::string me = dli::this_host();
        *local = std::any_of(chunk->hosts.begin(), chunk->hosts.end(),
                             [&](const std::string &h) { return dli::same_host(h, me); });
    });
}

void DLI_free(void *buffer) { std::free(buffer); }

const char *DLI_strerror(int code) {
    switch (code) {
    case DLI_SUCCESS: return "DLI_SUCCESS: no error";
    case DLI_ERR_ARG: return "DLI_ERR_ARG: invalid argument";
    case DLI_ERR_INFO: return "DLI_ERR_INFO: a dli_* hint or PIOX_DLI_* variable cannot be used";
    case DLI_ERR_NOENT: return "DLI_ERR_NOENT: no such file or directory";
    case DLI_ERR_ACCESS: return "DLI_ERR_ACCESS: permission denied";
    case DLI_ERR_CONNECT: return "DLI_ERR_CONNECT: the storage service could not be reached";
    case DLI_ERR_SERVER: return "DLI_ERR_SERVER: the storage service reported an error";
    case DLI_ERR_PROTOCOL: return "DLI_ERR_PROTOCOL: malformed answer from the storage service";
    case DLI_ERR_MAP: return "DLI_ERR_MAP: malformed map file";
    case DLI_ERR_UNSUPPORTED: return "DLI_ERR_UNSUPPORTED: no provider for this name was built in";
    case DLI_ERR_NOT_INIT: return "DLI_ERR_NOT_INIT: DLI_Init has not been called";
    case DLI_ERR_MPI: return "DLI_ERR_MPI: an MPI call failed";
    case DLI_ERR_NOMEM: return "DLI_ERR_NOMEM: out of memory";
    case DLI_ERR_IO: return "DLI_ERR_IO: system error";
    default: return "unknown DLI error code";
    }
}

const char *DLI_last_error(void) { return dli::last_error().c_str(); }

int DLI_get_process_name(char *name, int size) {
    return guarded("DLI_get_process_name", [&] {
        require(name != nullptr && size > 0, "name is NULL or size is not positive");
        std::string me = dli::this_host();
        require(me.size() < static_cast<size_t>(size), "the buffer is too small for the host name");
        std::memcpy(name, me.c_str(), me.size() + 1);
    });
}

}  // extern "C"
