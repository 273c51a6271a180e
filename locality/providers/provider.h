// provider.h - one interface in front of every storage system: given a name, the
// chunk table of the file, or the names in a directory.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "../chunk_table.h"
#include "../config.h"

namespace dli {

class Provider {
public:
    virtual ~Provider() = default;
    // "ceph", "hdfs", "posix", "static": for messages and the tool.
    virtual const char *name() const = 0;
    // The chunk table of the file NAME. Throws Error (DLI_ERR_NOENT, _ACCESS, _CONNECT,
    // _SERVER, _PROTOCOL, ...) with a message that names the file.
    virtual ChunkTable chunks(const std::string &name) = 0;
    // The names (as this provider accepts them) of the regular files directly under the
    // directory NAME, sorted. Throws as chunks() does.
    virtual std::vector<std::string> list_directory(const std::string &name) = 0;
};

// The provider for NAME (see dli.h for the rules), built with `config`. Throws
// Error(DLI_ERR_UNSUPPORTED) when that provider was not compiled in.
std::unique_ptr<Provider> provider_for(const std::string &name, const Config &config);

// The constructors provider_for chooses among; each lives in its own file.
std::unique_ptr<Provider> make_ceph_provider(const Config &config);
std::unique_ptr<Provider> make_hdfs_provider(const Config &config);
std::unique_ptr<Provider> make_mounted_hdfs_provider(const Config &config);  // dli_hdfs_mount
std::unique_ptr<Provider> make_posix_provider(const Config &config);
std::unique_ptr<Provider> make_static_provider(const Config &config);

// Name tests used by provider_for, exposed for the tests.
bool is_ceph_name(const std::string &name);     // ceph:// or a path on a CephFS mount
bool is_hdfs_name(const std::string &name);     // webhdfs:// or hdfs://
bool static_map_lists(const Config &config, const std::string &name);

}  // namespace dli
