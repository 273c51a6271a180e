// hdfs_mount.cpp - the dli_hdfs_mount setting, and the provider that answers for paths
// under it by asking the hdfs provider under their HDFS names (rules in hdfs_mount.h).
#include "providers/hdfs_mount.h"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "providers/ceph_names.h"
#include "providers/provider.h"
#include "providers/webhdfs_name.h"

namespace dli {
namespace {

const char *const example = "/mnt/hdfs=hdfs://namenode:8020/";

// Whole components: /mnt/hdfs holds /mnt/hdfs and /mnt/hdfs/x, not /mnt/hdfsx.
bool holds(const std::string &prefix, const std::string &path) {
    return path.compare(0, prefix.size(), prefix) == 0 &&
           (path.size() == prefix.size() || path[prefix.size()] == '/');
}

bool has_control_byte(const std::string &text) {
    for (unsigned char c : text)
        if (c < 0x20 || c == 0x7f) return true;
    return false;
}

// Where the HDFS URL starts: after the first '=' that an hdfs:// or webhdfs:// follows.
size_t url_start(const std::string &value) {
    for (size_t at = value.find('='); at != std::string::npos; at = value.find('=', at + 1)) {
        if (value.compare(at + 1, 7, "hdfs://") == 0 || value.compare(at + 1, 10, "webhdfs://") == 0)
            return at + 1;
    }
    return std::string::npos;
}

class MountedHdfsProvider : public Provider {
public:
    explicit MountedHdfsProvider(const Config &config)
        : mount_(config.hdfs_mount), hdfs_(make_hdfs_provider(config)) {}
    const char *name() const override { return "hdfs"; }

    ChunkTable chunks(const std::string &name) override {
        ChunkTable table;
        asking(name, [&](const std::string &remote) {
            table = hdfs_->chunks(remote);
            check_same_size(name, remote, table.file_size);
        });
        table.file = name;
        return table;
    }

    // The files' HDFS names, turned back into names under the directory as it was given.
    std::vector<std::string> list_directory(const std::string &name) override {
        std::vector<std::string> files;
        asking(name, [&](const std::string &remote) {
            std::string directory = name;
            while (directory.size() > 1 && directory.back() == '/') directory.pop_back();
            for (const std::string &file : hdfs_->list_directory(remote)) {
                size_t slash = file.rfind('/');  // the hdfs provider lists DIRECTORY/SUFFIX
                files.push_back(directory + (directory == "/" ? "" : "/") + file.substr(slash + 1));
            }
        });
        return files;
    }

private:
    // A local file of another size than HDFS says is not the file the NameNode
    // described (a prefix that leads elsewhere): its chunk table would misplace every
    // byte. A path this host cannot see is not checked.
    static void check_same_size(const std::string &name, const std::string &remote, int64_t size) {
        struct stat local;
        if (stat(name.c_str(), &local) != 0 || !S_ISREG(local.st_mode) || local.st_size == size) return;
        throw Error(DLI_ERR_ARG, "the local file has " + std::to_string(local.st_size) + " bytes, " + remote +
                                     " has " + std::to_string(size) + ": not the same file");
    }

    // Runs ASK with NAME's HDFS name; its errors name NAME, then the HDFS name and what
    // the NameNode said (or that it did not answer).
    template <class Ask> void asking(const std::string &name, Ask ask) {
        std::optional<std::string> remote = hdfs_name_under_mount(mount_, name);
        if (!remote) throw Error(DLI_ERR_ARG, name + ": not under dli_hdfs_mount " + mount_.local);
        try {
            ask(*remote);
        } catch (const Error &e) {
            throw Error(e.code(), name + " (dli_hdfs_mount " + mount_.local + "=" + mount_.remote + "): " + e.what());
        }
    }

    HdfsMount mount_;
    std::unique_ptr<Provider> hdfs_;
};

}  // namespace

HdfsMount parse_hdfs_mount(const std::string &setting, const std::string &value) {
    auto refuse = [&](const std::string &why) -> Error {
        return Error(DLI_ERR_INFO, setting + "=" + value + ": " + why);
    };
    size_t start = url_start(value);
    if (start == std::string::npos)
        throw refuse(std::string("expected LOCALPREFIX=HDFSURL (hdfs:// or webhdfs://), as in ") + example);
    std::string local = value.substr(0, start - 1);
    if (local.empty() || local[0] != '/')
        throw refuse("the local prefix \"" + local + "\" is not an absolute path");
    if (has_control_byte(local)) throw refuse("a control byte in the local prefix");
    HdfsMount mount;
    mount.local = normalize_path(local, "/");
    if (mount.local == "/") throw refuse("the local prefix is \"/\": every local path would be taken for HDFS");
    mount.remote = value.substr(start);
    try {
        parse_webhdfs_name(mount.remote, 9870);  // the port setting does not matter here
    } catch (const Error &e) {
        throw refuse(e.what());
    }
    while (mount.remote.back() == '/' && mount.remote.compare(mount.remote.size() - 3, 3, "://") != 0)
        mount.remote.pop_back();
    return mount;
}

std::optional<std::string> hdfs_name_under_mount(const HdfsMount &mount, const std::string &name) {
    if (mount.local.empty() || name.empty() || name.find("://") != std::string::npos) return std::nullopt;
    char cwd[PATH_MAX] = "/";
    if (name[0] != '/' && !getcwd(cwd, sizeof cwd)) return std::nullopt;
    std::string path = normalize_path(name, cwd);
    if (!holds(mount.local, path)) return std::nullopt;
    std::string rest = path.substr(mount.local.size());  // "" or "/..."
    bool remote_has_path = mount.remote.find('/', mount.remote.find("://") + 3) != std::string::npos;
    return mount.remote + (rest.empty() && !remote_has_path ? "/" : rest);
}

std::unique_ptr<Provider> make_mounted_hdfs_provider(const Config &config) {
    return std::make_unique<MountedHdfsProvider>(config);
}

}  // namespace dli
