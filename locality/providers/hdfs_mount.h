// hdfs_mount.h - HDFS reached through a local mount point (fuse-dfs, an NFS gateway):
// the setting dli_hdfs_mount=LOCALPREFIX=HDFSURL, and the HDFS name of a local path.
//
//   dli_hdfs_mount=/mnt/hdfs=hdfs://nn:8020/     /mnt/hdfs/x/y  ->  hdfs://nn:8020/x/y
//
// A path is under LOCALPREFIX by whole components (/mnt/hdfs/x is, /mnt/hdfsx is not),
// compared after making it absolute (from the working directory) and removing ".",
// ".." and repeated slashes, as text: symbolic links are not followed. The hdfs
// provider then answers for the HDFS name; the chunk table keeps the local one. A
// local file of another size than the HDFS one is DLI_ERR_ARG (the prefix leads to
// another file); a path the asking host cannot see is not checked.
#pragma once
#include <optional>
#include <string>

namespace dli {

struct HdfsMount {
    std::string local;   // absolute, normalized, never "/"; empty: no mount configured
    std::string remote;  // webhdfs://HOST[:PORT][/PATH] or hdfs://..., no trailing '/'
};

// VALUE of the setting SETTING (the hint or the variable, for messages). Throws
// Error(DLI_ERR_INFO) naming SETTING when VALUE is not LOCALPREFIX=HDFSURL with an
// absolute LOCALPREFIX other than "/" and an HDFSURL the hdfs provider accepts. The
// separator is the first '=' followed by hdfs:// or webhdfs://, so LOCALPREFIX may
// hold '=' itself.
HdfsMount parse_hdfs_mount(const std::string &setting, const std::string &value);

// The HDFS name of NAME when NAME is a path under MOUNT; nullopt otherwise (no mount,
// a URL, a path elsewhere, a relative name when the working directory is unknown).
std::optional<std::string> hdfs_name_under_mount(const HdfsMount &mount, const std::string &name);

}  // namespace dli
