// ceph_client.h - the few libcephfs calls the ceph provider makes, each failure turned
// into a dli::Error that names the file asked about. A CephMount is one connection to
// a cluster: set up from libdli's settings with a bounded connect time, unmounted and
// released by its destructor; a CephFile is one file open read-only on it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../config.h"

struct ceph_mount_info;

namespace dli {

struct CephStat {
    uint64_t inode = 0;
    int64_t size = 0;
    bool regular = false;
    bool directory = false;
};

// Where the stripe unit holding an offset is stored.
struct CephExtent {
    int64_t length = 0;     // bytes from the offset to the end of its stripe unit
    std::vector<int> osds;  // the acting OSDs of its object, primary first
};

class CephMount {
public:
    // Reads ceph.conf (config.ceph_conf, else libcephfs' own search), then CEPH_ARGS,
    // and mounts FS_NAME (empty: the default file system) as config.ceph_id. Connecting
    // gives up after config.timeout_ms. Throws Error: DLI_ERR_INFO (no usable conf),
    // _CONNECT (no cluster answered), _NOENT (no such file system), _ACCESS.
    CephMount(const Config &config, const std::string &fs_name);
    ~CephMount();
    CephMount(const CephMount &) = delete;
    CephMount &operator=(const CephMount &) = delete;

    // PATH (symbolic links followed); SUBJECT is the name to put in messages.
    CephStat stat(const std::string &path, const std::string &subject);
    // The names of the regular files directly in the directory PATH, sorted bytewise.
    std::vector<std::string> regular_files(const std::string &path, const std::string &subject);
    // The host= of OSD's CRUSH location; nullopt for an OSD without one (or no OSD).
    std::optional<std::string> crush_host(int osd);

private:
    friend class CephFile;
    ceph_mount_info *handle_ = nullptr;
    std::string conf_;  // where the settings came from, for messages
};

class CephFile {
public:
    CephFile(CephMount &mount, const std::string &path, const std::string &subject);  // read-only
    ~CephFile();
    CephFile(const CephFile &) = delete;
    CephFile &operator=(const CephFile &) = delete;

    CephStat stat();
    CephExtent extent(int64_t offset);

private:
    CephMount &mount_;
    std::string subject_;
    int fd_ = -1;
};

// The DLI_ERR_* code of a libcephfs error (a negative errno).
int code_for_ceph_error(int rc);

}  // namespace dli
