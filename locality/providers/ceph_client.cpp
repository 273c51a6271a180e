// ceph_client.cpp - libcephfs calls with errors as dli::Error (see ceph_client.h).
//
// libcephfs.h refuses to compile without a 64-bit off_t; only this file includes it,
// and no type whose layout depends on off_t crosses into other files.
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64
#endif
#include "providers/ceph_client.h"

#include <cephfs/libcephfs.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "error.h"

namespace dli {
namespace {

std::string describe(int rc) { return std::strerror(-rc); }

// The settings that keep a dead or unreachable cluster from holding the caller for
// long: connecting, monitor commands and closing the session all give up in time.
const char *const bounded_settings[] = {"client_mount_timeout", "rados_mon_op_timeout",
                                        "client_shutdown_timeout"};

// "client.NAME" or "NAME" -> "NAME" (ceph_create adds the "client." itself).
std::string client_id(const std::string &id) {
    const std::string prefix = "client.";
    return id.compare(0, prefix.size(), prefix) == 0 ? id.substr(prefix.size()) : id;
}

// A CRUSH location is (type, name) pairs of NUL-terminated strings, OSD to root.
std::optional<std::string> host_in_location(const char *location, size_t length) {
    size_t at = 0;
    while (at < length) {
        const char *type = location + at;
        size_t type_length = strnlen(type, length - at);
        if (at + type_length + 1 >= length) break;  // no name after the type
        const char *name = type + type_length + 1;
        size_t name_length = strnlen(name, length - at - type_length - 1);
        if (std::strcmp(type, "host") == 0 && name_length > 0) return std::string(name, name_length);
        at += type_length + 1 + name_length + 1;
    }
    return std::nullopt;
}

}  // namespace

int code_for_ceph_error(int rc) {
    switch (-rc) {
    case ENOTCONN: case ESHUTDOWN: case ECONNRESET: case ECONNABORTED: return DLI_ERR_CONNECT;
    case EISDIR: return DLI_ERR_ARG;
    default: return code_for_errno(-rc);
    }
}

CephMount::CephMount(const Config &config, const std::string &fs_name) {
    auto origin = config.origin.find("dli_ceph_conf");
    conf_ = config.ceph_conf.empty() ? "ceph.conf" : origin != config.origin.end() ? origin->second : config.ceph_conf;
    std::string id = client_id(config.ceph_id);
    int rc = ceph_create(&handle_, id.empty() ? nullptr : id.c_str());
    if (rc < 0) {
        handle_ = nullptr;
        throw Error(code_for_ceph_error(rc), "ceph: cannot create a client " + id + ": " + describe(rc));
    }
    try {
        rc = ceph_conf_read_file(handle_, config.ceph_conf.empty() ? nullptr : config.ceph_conf.c_str());
        if (rc < 0 && config.ceph_conf.empty())
            throw Error(DLI_ERR_INFO, "ceph: no ceph.conf found (/etc/ceph/ceph.conf, ~/.ceph/config, ./ceph.conf): "
                                      "set CEPH_CONF or the hint dli_ceph_conf");
        if (rc < 0) throw Error(DLI_ERR_INFO, "ceph: " + conf_ + ": cannot read it: " + describe(rc));
        if ((rc = ceph_conf_parse_env(handle_, nullptr)) < 0)
            throw Error(DLI_ERR_INFO, "ceph: CEPH_ARGS cannot be used: " + describe(rc));
        long seconds = std::max(1L, (config.timeout_ms + 999) / 1000);
        for (const char *setting : bounded_settings) ceph_conf_set(handle_, setting, std::to_string(seconds).c_str());
        // Several mounts of one process would fight over one admin socket; this client
        // has nothing to administer.
        ceph_conf_set(handle_, "admin_socket", "");
        // Without a monitor address libcephfs would ask DNS for one: not what anyone means.
        char monitors[4096] = "";
        rc = ceph_conf_get(handle_, "mon_host", monitors, sizeof monitors);
        if ((rc < 0 && rc != -ENAMETOOLONG) || !monitors[0])
            throw Error(DLI_ERR_INFO, "ceph: " + conf_ + " names no monitor (mon_host)");
        if (!fs_name.empty() && (rc = ceph_select_filesystem(handle_, fs_name.c_str())) < 0)
            throw Error(code_for_ceph_error(rc), "ceph: file system " + fs_name + ": " + describe(rc));
        rc = ceph_mount(handle_, "/");
        if (rc == -ENOENT && !fs_name.empty())
            throw Error(DLI_ERR_NOENT, "ceph: the cluster of " + conf_ + " has no file system named " + fs_name);
        if (rc == -ETIMEDOUT)
            throw Error(DLI_ERR_CONNECT, "ceph: no answer from the cluster of " + conf_ + " within " +
                                             std::to_string(seconds) + " s (dli_timeout_ms)");
        if (rc < 0) {
            int code = code_for_ceph_error(rc);
            throw Error(code == DLI_ERR_ACCESS ? code : DLI_ERR_CONNECT,
                        "ceph: cannot mount the file system of " + conf_ + ": " + describe(rc));
        }
    } catch (...) {
        ceph_release(handle_);
        throw;
    }
}

CephMount::~CephMount() {
    ceph_unmount(handle_);
    ceph_release(handle_);
}

CephStat CephMount::stat(const std::string &path, const std::string &subject) {
    struct ceph_statx stx;
    int rc = ceph_statx(handle_, path.c_str(), &stx, CEPH_STATX_INO | CEPH_STATX_MODE | CEPH_STATX_SIZE, 0);
    if (rc < 0) throw Error(code_for_ceph_error(rc), subject + ": " + describe(rc));
    return {stx.stx_ino, static_cast<int64_t>(stx.stx_size), S_ISREG(stx.stx_mode), S_ISDIR(stx.stx_mode)};
}

std::vector<std::string> CephMount::regular_files(const std::string &path, const std::string &subject) {
    struct ceph_dir_result *dir = nullptr;
    int rc = ceph_opendir(handle_, path.c_str(), &dir);
    if (rc < 0) throw Error(code_for_ceph_error(rc), subject + ": cannot list it: " + describe(rc));
    std::vector<std::string> names;
    struct dirent entry;
    struct ceph_statx stx;
    // Symbolic links are not followed: a directory lists the files it holds itself.
    while ((rc = ceph_readdirplus_r(handle_, dir, &entry, &stx, CEPH_STATX_MODE, AT_SYMLINK_NOFOLLOW, nullptr)) > 0)
        if (S_ISREG(stx.stx_mode)) names.emplace_back(entry.d_name);
    ceph_closedir(handle_, dir);
    if (rc < 0) throw Error(code_for_ceph_error(rc), subject + ": cannot list it: " + describe(rc));
    std::sort(names.begin(), names.end());
    return names;
}

std::optional<std::string> CephMount::crush_host(int osd) {
    std::vector<char> location(512);
    for (;;) {
        int rc = ceph_get_osd_crush_location(handle_, osd, location.data(), location.size());
        if (rc == -ENOENT) return std::nullopt;  // no such OSD: a hole in an EC pool's acting set
        if (rc == -ERANGE && location.size() < (1u << 20)) {
            location.resize(location.size() * 2);
            continue;
        }
        if (rc < 0)
            throw Error(code_for_ceph_error(rc), "ceph: the CRUSH location of osd." + std::to_string(osd) + ": " +
                                                     describe(rc));
        return host_in_location(location.data(), static_cast<size_t>(rc));
    }
}

CephFile::CephFile(CephMount &mount, const std::string &path, const std::string &subject)
    : mount_(mount), subject_(subject) {
    fd_ = ceph_open(mount_.handle_, path.c_str(), O_RDONLY, 0);
    if (fd_ < 0) throw Error(code_for_ceph_error(fd_), subject_ + ": " + describe(fd_));
}

CephFile::~CephFile() { ceph_close(mount_.handle_, fd_); }

CephStat CephFile::stat() {
    struct ceph_statx stx;
    int rc = ceph_fstatx(mount_.handle_, fd_, &stx, CEPH_STATX_INO | CEPH_STATX_MODE | CEPH_STATX_SIZE, 0);
    if (rc < 0) throw Error(code_for_ceph_error(rc), subject_ + ": " + describe(rc));
    return {stx.stx_ino, static_cast<int64_t>(stx.stx_size), S_ISREG(stx.stx_mode), S_ISDIR(stx.stx_mode)};
}

CephExtent CephFile::extent(int64_t offset) {
    CephExtent extent;
    extent.osds.resize(16);
    for (;;) {
        int n = ceph_get_file_extent_osds(mount_.handle_, fd_, offset, &extent.length, extent.osds.data(),
                                          static_cast<int>(extent.osds.size()));
        if (n == -ERANGE && extent.osds.size() < 4096) {  // a pool wider than the guess
            extent.osds.resize(extent.osds.size() * 4);
            continue;
        }
        if (n < 0)
            throw Error(code_for_ceph_error(n), subject_ + ": the OSDs of offset " + std::to_string(offset) + ": " +
                                                    describe(n));
        extent.osds.resize(static_cast<size_t>(n));
        return extent;
    }
}

}  // namespace dli
