// select.cpp - which provider answers for a name (the rules are in dli.h).
#include "error.h"
#include "providers/provider.h"

namespace dli {

bool is_hdfs_name(const std::string &name) {
    return name.rfind("webhdfs://", 0) == 0 || name.rfind("hdfs://", 0) == 0;
}

std::unique_ptr<Provider> provider_for(const std::string &name, const Config &config) {
    if (name.empty()) throw Error(DLI_ERR_ARG, "an empty file name");
    if (is_hdfs_name(name)) return make_hdfs_provider(config);
    // Before the ceph and static tests: the setting names these paths' storage outright.
    if (hdfs_name_under_mount(config.hdfs_mount, name)) return make_mounted_hdfs_provider(config);
    if (is_ceph_name(name)) return make_ceph_provider(config);
    if (static_map_lists(config, name)) return make_static_provider(config);
    if (name.find("://") != std::string::npos)
        throw Error(DLI_ERR_UNSUPPORTED, name + ": no provider for this scheme");
    return make_posix_provider(config);
}

}  // namespace dli
