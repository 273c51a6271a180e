// ceph_names.cpp - ceph:// names and paths on CephFS mounts (the rules are in ceph_names.h).
#include "providers/ceph_names.h"

#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

#include "error.h"
#include "providers/provider.h"

namespace dli {
namespace {

const std::string url_prefix = "ceph://";

bool is_octal(char c) { return c >= '0' && c <= '7'; }

std::vector<std::string> split(const std::string &text, char separator) {
    std::vector<std::string> parts;
    std::string part;
    std::istringstream in(text);
    while (std::getline(in, part, separator)) parts.push_back(part);
    return parts;
}

// Ceph accepts file system names of these characters only (and the tools print them).
bool valid_fs_name(const std::string &name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](unsigned char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
               c == '-' || c == '.';
    });
}

// The file system and the directory that a kernel CephFS mount's source and options
// name: "user@fsid.fs=/dir" (Linux 5.17 on), or "mon,...:/dir" with mds_namespace=fs.
void kernel_mount_origin(const MountEntry &mount, std::string *fs_name, std::string *directory) {
    const std::string &source = mount.source;
    size_t at = source.find('@');
    size_t equals = at == std::string::npos ? std::string::npos : source.find("=/", at);
    if (equals != std::string::npos) {
        size_t dot = source.find('.', at);  // the fsid (a UUID) has no dot
        if (dot != std::string::npos && dot < equals) *fs_name = source.substr(dot + 1, equals - dot - 1);
        *directory = source.substr(equals + 1);
        return;
    }
    size_t colon = source.find(":/");
    if (colon != std::string::npos) *directory = source.substr(colon + 1);
    for (const std::string &option : split(mount.super_options, ',')) {
        for (const char *key : {"mds_namespace=", "fs="})
            if (option.rfind(key, 0) == 0) *fs_name = option.substr(std::string(key).size());
    }
}

bool holds(const std::string &mount_point, const std::string &path) {
    if (mount_point == "/") return true;
    return path.compare(0, mount_point.size(), mount_point) == 0 &&
           (path.size() == mount_point.size() || path[mount_point.size()] == '/');
}

std::vector<MountEntry> this_process_mounts() {
    std::ifstream in("/proc/self/mountinfo");
    std::stringstream text;
    text << in.rdbuf();
    return parse_mountinfo(text.str());
}

std::optional<CephPath> locate_mount_path(const std::string &name) {
    if (name.empty() || is_ceph_url(name)) return std::nullopt;
    std::vector<MountEntry> mounts = this_process_mounts();
    // The common case, a machine without CephFS, ends here.
    if (std::none_of(mounts.begin(), mounts.end(), [](const MountEntry &m) { return is_cephfs_type(m.fstype); }))
        return std::nullopt;
    char cwd[PATH_MAX] = "/";
    std::optional<CephPath> found;
    if (name[0] == '/' || getcwd(cwd, sizeof cwd)) found = locate_on_cephfs(normalize_path(name, cwd), mounts);
    if (!found) {  // a symbolic link into the mount, or ".." through one
        std::unique_ptr<char, decltype(&std::free)> real(realpath(name.c_str(), nullptr), &std::free);
        if (real) found = locate_on_cephfs(real.get(), mounts);
    }
    if (found) found->local_path = name;
    return found;
}

}  // namespace

std::string unescape_mount_field(const std::string &field) {
    std::string out;
    for (size_t i = 0; i < field.size(); ++i) {
        if (field[i] == '\\' && i + 3 < field.size() && field[i + 1] <= '3' && is_octal(field[i + 1]) && is_octal(field[i + 2]) &&
            is_octal(field[i + 3])) {
            out += static_cast<char>((field[i + 1] - '0') * 64 + (field[i + 2] - '0') * 8 + (field[i + 3] - '0'));
            i += 3;
        } else {
            out += field[i];
        }
    }
    return out;
}

std::vector<MountEntry> parse_mountinfo(const std::string &text) {
    std::vector<MountEntry> mounts;
    for (const std::string &line : split(text, '\n')) {
        std::vector<std::string> fields;
        for (const std::string &field : split(line, ' '))
            if (!field.empty()) fields.push_back(field);
        // id parent major:minor root mount-point options [optional...] - fstype source super-options
        auto dash = std::find(fields.begin() + std::min<size_t>(fields.size(), 6), fields.end(), "-");
        if (fields.size() < 10 || dash == fields.end() || fields.end() - dash < 4) continue;
        MountEntry mount;
        mount.root = unescape_mount_field(fields[3]);
        mount.mount_point = unescape_mount_field(fields[4]);
        mount.fstype = unescape_mount_field(dash[1]);
        mount.source = unescape_mount_field(dash[2]);
        mount.super_options = unescape_mount_field(dash[3]);
        if (mount.mount_point.empty() || mount.mount_point[0] != '/') continue;
        mounts.push_back(mount);
    }
    return mounts;
}

bool is_cephfs_type(const std::string &fstype) { return fstype == "fuse.ceph-fuse" || fstype == "ceph"; }

std::string normalize_path(const std::string &path, const std::string &cwd) {
    std::vector<std::string> parts;
    for (const std::string &part : split(path.empty() || path[0] != '/' ? cwd + "/" + path : path, '/')) {
        if (part.empty() || part == ".") continue;
        if (part == "..") {
            if (!parts.empty()) parts.pop_back();
        } else {
            parts.push_back(part);
        }
    }
    std::string out;
    for (const std::string &part : parts) out += "/" + part;
    return out.empty() ? "/" : out;
}

bool is_ceph_url(const std::string &name) { return name.compare(0, url_prefix.size(), url_prefix) == 0; }

CephPath parse_ceph_url(const std::string &name) {
    std::string rest = name.substr(url_prefix.size());
    size_t slash = rest.find('/');
    CephPath where;
    where.fs_name = rest.substr(0, slash);
    where.path = slash == std::string::npos ? "/" : rest.substr(slash);  // libcephfs resolves the rest
    if (!where.fs_name.empty() && !valid_fs_name(where.fs_name))
        throw Error(DLI_ERR_ARG, name + ": \"" + where.fs_name +
                                     "\" is not a file system name (ceph://FS_NAME/PATH, or ceph:///PATH "
                                     "for the default file system)");
    if (slash == std::string::npos && where.fs_name.empty())
        throw Error(DLI_ERR_ARG, name + ": no path (ceph:///PATH or ceph://FS_NAME/PATH)");
    return where;
}

std::optional<CephPath> locate_on_cephfs(const std::string &path, const std::vector<MountEntry> &mounts) {
    const MountEntry *best = nullptr;
    for (const MountEntry &mount : mounts)  // a later mount on the same point covers an earlier one
        if (holds(mount.mount_point, path) && (!best || mount.mount_point.size() >= best->mount_point.size()))
            best = &mount;
    if (!best || !is_cephfs_type(best->fstype)) return std::nullopt;
    CephPath where;
    std::string directory;
    if (best->fstype == "ceph") kernel_mount_origin(*best, &where.fs_name, &directory);
    std::string below = best->mount_point == "/" ? path : path.substr(best->mount_point.size());
    where.path = normalize_path(directory + "/" + best->root + "/" + below, "/");
    return where;
}

std::optional<CephPath> ceph_path_of(const std::string &name) {
    if (is_ceph_url(name)) return parse_ceph_url(name);
    return locate_mount_path(name);
}

bool is_ceph_name(const std::string &name) { return is_ceph_url(name) || locate_mount_path(name).has_value(); }

}  // namespace dli
