// config.h - libdli's settings: the dli_* hints given to DLI_Init, then the PIOX_* (and
// the storage systems' own: CEPH_CONF, HADOOP_USER_NAME) environment variables, then
// the defaults. One table in README.md lists them all.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <map>
#include <string>

#include "providers/hdfs_mount.h"

namespace dli {

struct Config {
    // posix provider: the chunk size of a local file (hint dli_chunk_size, PIOX_DLI_CHUNK_SIZE).
    int64_t chunk_size = 64ll << 20;
    // static provider: the map file (hint dli_map_file, PIOX_DLI_MAP); empty: none.
    std::string map_file;
    // ceph provider: ceph.conf (hint dli_ceph_conf, CEPH_CONF; empty: libcephfs's search)
    // and the client id (hint dli_ceph_id, PIOX_DLI_CEPH_ID; empty: "admin").
    std::string ceph_conf;
    std::string ceph_id;
    // hdfs provider: user.name (hint dli_webhdfs_user, HADOOP_USER_NAME), the delegation
    // token (hint dli_webhdfs_delegation, PIOX_DLI_WEBHDFS_DELEGATION), the WebHDFS port
    // for hdfs:// names without one (hint dli_webhdfs_port, PIOX_DLI_WEBHDFS_PORT), and
    // the time limit of one request (hint dli_timeout_ms, PIOX_DLI_TIMEOUT_MS; the ceph
    // provider's limit for connecting to the cluster too, in whole seconds).
    std::string webhdfs_user;
    std::string webhdfs_delegation;
    int webhdfs_port = 9870;
    long timeout_ms = 10000;
    // hdfs provider for the paths under a local mount of HDFS (hint dli_hdfs_mount,
    // PIOX_DLI_HDFS_MOUNT: LOCALPREFIX=HDFSURL); local empty: none.
    HdfsMount hdfs_mount;

    // Every key read, with the value it came from, for PIOX_DEBUG and the tool.
    std::map<std::string, std::string> origin;
};

// The environment and defaults; throws Error(DLI_ERR_INFO) for a value that cannot be
// used (a chunk size of "lots", a port of 70000).
Config config_from_environment();

// Hints override the environment: `base` with every dli_* key of `info` applied.
// Unknown dli_* keys are DLI_ERR_INFO (a misspelt hint should not pass silently).
Config config_with_hints(const Config &base, MPI_Info info);

}  // namespace dli
