// config.cpp - libdli's settings from the environment and from dli_* hints.
#include "config.h"

#include <cerrno>
#include <cstdlib>
#include <functional>

#include "error.h"

namespace dli {
namespace {

// A whole decimal number in [low, high], with an optional k/m/g (binary) suffix when
// `sizes`; anything else is DLI_ERR_INFO naming the setting.
long long parse_number(const std::string &setting, const std::string &text, long long low,
                       long long high, bool sizes) {
    errno = 0;
    char *end = nullptr;
    long long value = std::strtoll(text.c_str(), &end, 10);
    bool bad = text.empty() || errno != 0 || end == text.c_str() || !(text[0] >= '0' && text[0] <= '9');
    if (!bad && sizes && *end) {
        int shift = *end == 'k' || *end == 'K' ? 10 : *end == 'm' || *end == 'M' ? 20
                  : *end == 'g' || *end == 'G' ? 30 : -1;
        if (shift < 0 || end[1] || value > (high >> shift)) bad = true;
        else value <<= shift, ++end;
    }
    if (bad || *end || value < low || value > high)
        throw Error(DLI_ERR_INFO, setting + "=" + text + ": expected a whole number from " +
                                      std::to_string(low) + " to " + std::to_string(high));
    return value;
}

// One setting: its hint key, its environment variable, and how to store a value.
struct Setting {
    const char *hint;
    const char *variable;
    std::function<void(Config &, const std::string &origin, const std::string &value)> apply;
};

const std::vector<Setting> &settings() {
    static const std::vector<Setting> table = {
        {"dli_chunk_size", "PIOX_DLI_CHUNK_SIZE",
         [](Config &c, const std::string &o, const std::string &v) {
             c.chunk_size = parse_number(o, v, 1, 1ll << 50, true); }},
        {"dli_map_file", "PIOX_DLI_MAP",
         [](Config &c, const std::string &, const std::string &v) { c.map_file = v; }},
        {"dli_ceph_conf", "CEPH_CONF",
         [](Config &c, const std::string &, const std::string &v) { c.ceph_conf = v; }},
        {"dli_ceph_id", "PIOX_DLI_CEPH_ID",
         [](Config &c, const std::string &, const std::string &v) { c.ceph_id = v; }},
        {"dli_webhdfs_user", "HADOOP_USER_NAME",
         [](Config &c, const std::string &, const std::string &v) { c.webhdfs_user = v; }},
        {"dli_webhdfs_delegation", "PIOX_DLI_WEBHDFS_DELEGATION",
         [](Config &c, const std::string &, const std::string &v) { c.webhdfs_delegation = v; }},
        {"dli_webhdfs_port", "PIOX_DLI_WEBHDFS_PORT",
         [](Config &c, const std::string &o, const std::string &v) {
             c.webhdfs_port = static_cast<int>(parse_number(o, v, 1, 65535, false)); }},
        {"dli_timeout_ms", "PIOX_DLI_TIMEOUT_MS",
         [](Config &c, const std::string &o, const std::string &v) {
             c.timeout_ms = static_cast<long>(parse_number(o, v, 1, 3600 * 1000, false)); }},
        {"dli_hdfs_mount", "PIOX_DLI_HDFS_MOUNT",
         [](Config &c, const std::string &o, const std::string &v) { c.hdfs_mount = parse_hdfs_mount(o, v); }},
    };
    return table;
}

}  // namespace

Config config_from_environment() {
    Config config;
    for (const Setting &setting : settings()) {
        const char *value = std::getenv(setting.variable);
        if (!value || !*value) continue;
        setting.apply(config, setting.variable, value);
        config.origin[setting.hint] = std::string(setting.variable) + "=" + value;
    }
    return config;
}

Config config_with_hints(const Config &base, MPI_Info info) {
    Config config = base;
    if (info == MPI_INFO_NULL) return config;
    int nkeys = 0;
    if (MPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS) throw Error(DLI_ERR_INFO, "the info object is not valid");
    for (int i = 0; i < nkeys; ++i) {
        char key[MPI_MAX_INFO_KEY + 1] = {};
        MPI_Info_get_nthkey(info, i, key);
        std::string name = key;
        if (name.rfind("dli_", 0) != 0) continue;  // other libraries' hints are theirs
        int length = 0, found = 0;
        MPI_Info_get_valuelen(info, key, &length, &found);
        std::string value(static_cast<size_t>(length) + 1, '\0');
        MPI_Info_get(info, key, length + 1, value.data(), &found);
        value.resize(static_cast<size_t>(length));
        const Setting *match = nullptr;
        for (const Setting &setting : settings())
            if (name == setting.hint) match = &setting;
        if (!match) throw Error(DLI_ERR_INFO, "unknown hint " + name);
        match->apply(config, name, value);
        config.origin[name] = "hint " + name + "=" + value;
    }
    return config;
}

}  // namespace dli
