// ceph_names.h - which names the ceph provider answers for, and where each one lies
// inside which CephFS. Pure text work plus one read of /proc/self/mountinfo: no
// libcephfs, so that asking "is this a ceph name?" of every name stays cheap.
//
// The grammar of ceph:// names:
//   ceph:///PATH          PATH in the cluster's default file system (or client_fs from ceph.conf)
//   ceph://FS_NAME/PATH   PATH in the file system FS_NAME (letters, digits, '_', '-', '.')
//   ceph://FS_NAME        the root of FS_NAME
// PATH is taken byte for byte (no %-decoding): spaces, UTF-8 and newlines are ordinary.
//
// A path on a CephFS mount (fstype fuse.ceph-fuse, or ceph for the kernel client) is
// found by its longest mount point in /proc/self/mountinfo, lexically first and then
// through realpath (symbolic links into the mount). Its path inside the file system is
// the mount's root field (a bind mount of a subdirectory) plus the rest; a kernel mount
// adds the directory and file system its source names ("mon:/dir", "user@fsid.fs=/dir").
// ceph-fuse does not say which subdirectory it mounted (ceph-fuse -r): the provider
// checks that the inode it finds is the one the mount shows.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace dli {

// A file or directory inside a CephFS.
struct CephPath {
    std::string fs_name;     // empty: the default file system
    std::string path;        // absolute inside the file system: "/" or "/a/b"
    std::string local_path;  // the mount path it was named by, empty for a ceph:// name
};

// One line of /proc/self/mountinfo, its escapes (\040 for a space, ...) decoded.
struct MountEntry {
    std::string root;           // the directory of the file system that is mounted here
    std::string mount_point;
    std::string fstype;
    std::string source;
    std::string super_options;
};

// Every well-formed line of a mountinfo text, in order; malformed lines are skipped.
std::vector<MountEntry> parse_mountinfo(const std::string &text);

// A mountinfo field with its \NNN octal escapes turned back into bytes.
std::string unescape_mount_field(const std::string &field);

// fuse.ceph-fuse (ceph-fuse) or ceph (the kernel client).
bool is_cephfs_type(const std::string &fstype);

// An absolute path without ".", ".." or repeated slashes ("/" at least); a relative
// PATH is taken from CWD. Purely textual: symbolic links are not followed.
std::string normalize_path(const std::string &path, const std::string &cwd);

// Whether NAME starts with ceph://, and what it names. parse_ceph_url throws
// Error(DLI_ERR_ARG) for a file system name that Ceph would not accept.
bool is_ceph_url(const std::string &name);
CephPath parse_ceph_url(const std::string &name);

// Where the normalized absolute PATH lies when the mount holding it (the longest mount
// point; the later of two mounts on one point) is a CephFS; nullopt otherwise.
std::optional<CephPath> locate_on_cephfs(const std::string &path, const std::vector<MountEntry> &mounts);

// The whole question for NAME: a ceph:// name (parse_ceph_url), or a path on a CephFS
// mount of this process. nullopt for anything else (including paths that cannot be
// resolved). is_ceph_name (provider.h) is this without the throwing.
std::optional<CephPath> ceph_path_of(const std::string &name);

}  // namespace dli
