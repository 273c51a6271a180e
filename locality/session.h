// session.h - the state DLI_Init leaves for later calls: the settings, the communicator,
// each rank's host, and the chunk tables DLI_Load shared. One per process, behind a
// mutex; without DLI_Init it holds the environment's settings and nothing else.
#pragma once
#include <mpi.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "chunk_table.h"
#include "config.h"

namespace dli {

class Session {
public:
    static Session &get();

    void init(MPI_Comm comm, MPI_Info info);    // collective
    void load(const std::string &name);         // collective over init's communicator
    void finalize();                            // collective

    Config config();
    // NAME's table: the loaded one (shared, not copied: DLI_check_data is called per
    // chunk on tables of 100,000 chunks), else asked of its provider now.
    std::shared_ptr<const ChunkTable> table(const std::string &name);
    std::vector<std::string> list_directory(const std::string &name);

private:
    Session();

    std::mutex mutex_;
    bool initialized_ = false;
    bool environment_read_ = false;
    Config config_;
    MPI_Comm comm_ = MPI_COMM_NULL;
    std::vector<std::string> rank_hosts_;       // per rank of comm_
    std::map<std::string, std::shared_ptr<const ChunkTable>> loaded_;
};

// The collective steps of DLI_Init and DLI_Load, for any communicator (DLI_map_chunks_comm
// uses them without the session). Every rank returns the same answer or throws the same
// code.
// The environment's settings with info's dli_* hints, once every rank found them usable.
Config agreed_config(MPI_Comm comm, MPI_Info info);
// Each rank's host, in rank order.
std::vector<std::string> gather_hosts(MPI_Comm comm);
// NAME's table: asked of the storage once (rank 0), or for a local file from what each
// host holds.
ChunkTable load_collectively(MPI_Comm comm, const std::vector<std::string> &rank_hosts,
                             const std::string &name, const Config &config);

// Wire form of a chunk table (DLI_Load's broadcast).
std::vector<char> encode_table(const ChunkTable &table);
ChunkTable decode_table(const char *data, size_t size);  // throws Error(DLI_ERR_PROTOCOL)

}  // namespace dli
