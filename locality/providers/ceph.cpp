// ceph.cpp - the ceph provider: a CephFS file through libcephfs, one chunk per stripe
// unit, each held by the CRUSH hosts (host=) of the acting OSDs of its object, primary
// first. Names: ceph:///PATH, ceph://FS_NAME/PATH, or a path on a ceph-fuse or kernel
// CephFS mount (ceph_names.h). Settings: dli_ceph_conf / CEPH_CONF (a mount path needs
// one too: which conf a ceph-fuse process was started with cannot be learnt reliably),
// dli_ceph_id / PIOX_DLI_CEPH_ID, and dli_timeout_ms for connecting.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <map>
#include <optional>

#include "error.h"
#include "providers/ceph_client.h"
#include "providers/ceph_mount_cache.h"
#include "providers/ceph_names.h"
#include "providers/provider.h"

namespace dli {
namespace {

// OSD -> CRUSH host, asked once per OSD within one call.
class OsdHosts {
public:
    explicit OsdHosts(CephMount &mount) : mount_(mount) {}

    // The hosts of an acting set in its order; an OSD without a host is left out, and a
    // host holding two replicas (a rule that spreads over OSDs, not hosts) counts once.
    std::vector<std::string> of(const std::vector<int> &osds) {
        std::vector<std::string> hosts;
        for (int osd : osds) {
            auto known = hosts_.find(osd);
            if (known == hosts_.end()) known = hosts_.emplace(osd, mount_.crush_host(osd)).first;
            const std::optional<std::string> &host = known->second;
            if (host && std::find(hosts.begin(), hosts.end(), *host) == hosts.end()) hosts.push_back(*host);
        }
        return hosts;
    }

private:
    CephMount &mount_;
    std::map<int, std::optional<std::string>> hosts_;
};

CephPath where_is(const std::string &name) {
    std::optional<CephPath> where = ceph_path_of(name);
    if (!where) throw Error(DLI_ERR_ARG, name + ": neither a ceph:// name nor a path on a CephFS mount");
    return *where;
}

// A mount path is checked against what the mount itself shows: ceph-fuse does not say
// which subdirectory (-r) or which file system it mounted, and a wrong guess must not
// answer for another file.
struct MountView {
    bool on_mount = false;
    uint64_t inode = 0;
};

MountView view_through_mount(const CephPath &where, const std::string &name) {
    MountView view;
    if (where.local_path.empty()) return view;
    struct stat local;
    if (::stat(where.local_path.c_str(), &local) != 0) throw_errno(errno, name);
    view.on_mount = true;
    view.inode = local.st_ino;
    return view;
}

[[noreturn]] void throw_other_file(const CephPath &where, const std::string &name) {
    throw Error(DLI_ERR_ARG, name + ": the mount shows another file than " + where.path + " in the file system " +
                                 (where.fs_name.empty() ? "(the default one)" : where.fs_name) +
                                 " (a ceph-fuse -r mount of a subdirectory, or of another file system?): "
                                 "name it ceph://FS_NAME/PATH");
}

// Runs `ask`, turning "no such file" into "another file" when the mount shows one.
template <class Ask> auto through(const MountView &view, const CephPath &where, const std::string &name, Ask ask) {
    try {
        return ask();
    } catch (const Error &e) {
        if (view.on_mount && e.code() == DLI_ERR_NOENT) throw_other_file(where, name);
        throw;
    }
}

void check_same_inode(const MountView &view, const CephStat &stat, const CephPath &where, const std::string &name) {
    if (view.on_mount && view.inode != stat.inode) throw_other_file(where, name);
}

class CephProvider final : public Provider {
public:
    explicit CephProvider(const Config &config) : config_(config) {}

    const char *name() const override { return "ceph"; }

    ChunkTable chunks(const std::string &name) override {
        CephPath where = where_is(name);
        MountView view = view_through_mount(where, name);
        std::shared_ptr<CephMount> mount = shared_ceph_mount(config_, where.fs_name);
        CephFile file = through(view, where, name, [&] { return CephFile(*mount, where.path, name); });
        CephStat stat = file.stat();
        check_same_inode(view, stat, where, name);
        if (stat.directory) throw Error(DLI_ERR_ARG, name + ": a directory, not a file");
        if (!stat.regular) throw Error(DLI_ERR_ARG, name + ": not a regular file");

        ChunkTable table;
        table.file = name;
        table.file_size = stat.size;
        OsdHosts hosts(*mount);
        for (int64_t offset = 0; offset < stat.size;) {
            CephExtent extent = file.extent(offset);
            if (extent.length <= 0)
                throw Error(DLI_ERR_PROTOCOL, name + ": libcephfs gave no stripe unit at offset " + std::to_string(offset));
            if (table.chunks.empty() && stat.size / extent.length >= INT_MAX)
                throw Error(DLI_ERR_NOMEM, name + ": more than 2^31 stripe units of " + std::to_string(extent.length) +
                                               " bytes");
            Chunk chunk;
            chunk.offset = offset;
            chunk.length = std::min(extent.length, stat.size - offset);  // the last unit ends with the file
            chunk.hosts = hosts.of(extent.osds);
            offset += chunk.length;
            table.chunks.push_back(std::move(chunk));
        }
        check_chunk_table(table, DLI_ERR_PROTOCOL, name);
        return table;
    }

    std::vector<std::string> list_directory(const std::string &name) override {
        CephPath where = where_is(name);
        MountView view = view_through_mount(where, name);
        std::shared_ptr<CephMount> mount = shared_ceph_mount(config_, where.fs_name);
        CephStat stat = through(view, where, name, [&] { return mount->stat(where.path, name); });
        check_same_inode(view, stat, where, name);
        if (!stat.directory) throw Error(DLI_ERR_ARG, name + ": not a directory");
        // The names come back in the form they were asked in: mount paths or ceph:// names.
        std::string prefix = name.back() == '/' ? name : name + "/";
        std::vector<std::string> names = mount->regular_files(where.path, name);
        for (std::string &entry : names) entry = prefix + entry;
        return names;
    }

private:
    Config config_;
};

}  // namespace

std::unique_ptr<Provider> make_ceph_provider(const Config &config) { return std::make_unique<CephProvider>(config); }

}  // namespace dli
