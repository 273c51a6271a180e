// webhdfs_name.h - an HDFS name taken apart (which NameNode, which path) and the
// WebHDFS REST URLs built from it.
//
//   webhdfs://HOST[:PORT]/PATH   PORT is the NameNode's HTTP port (default: the
//                                 dli_webhdfs_port setting, 9870)
//   hdfs://HOST[:PORT]/PATH      PORT is the NameNode's RPC port, which WebHDFS does not
//                                 speak: it is checked and kept in the names of listed
//                                 files, and the request goes to dli_webhdfs_port
//
// PATH is taken literally, as a file name: "%41" names a file called "%41", not "A".
// It is percent-encoded in the URL (everything but unreserved bytes and '/').
#pragma once
#include <string>

namespace dli {

struct WebhdfsName {
    std::string scheme;     // "webhdfs" or "hdfs"
    std::string authority;  // HOST[:PORT] as written, for the names of files under a directory
    std::string host;       // "nn1", "10.0.0.5" or "[::1]"
    int http_port = 0;      // where the WebHDFS requests go
    std::string path;       // "/data/x" ("/" when the name has none)
};

// Throws Error(DLI_ERR_ARG) for a name with no host, a bad port, a control byte, user
// information ("user@host"), or a "." or ".." path segment.
WebhdfsName parse_webhdfs_name(const std::string &name, int default_http_port);

// PATH percent-encoded for a URL path (unreserved bytes and '/' kept as they are).
std::string percent_encode_path(const std::string &path);
// VALUE percent-encoded for a query value (only unreserved bytes kept).
std::string percent_encode_value(const std::string &value);

// One WebHDFS call: the URL to fetch, and the same URL for messages, with the
// delegation token replaced by "***" (a token is a credential).
struct WebhdfsUrl {
    std::string fetch;
    std::string shown;
};
WebhdfsUrl webhdfs_url(const WebhdfsName &name, const std::string &op, const std::string &user,
                       const std::string &delegation);

// The name of the entry SUFFIX of the directory DIRECTORY, in the directory's scheme.
std::string webhdfs_child_name(const WebhdfsName &directory, const std::string &suffix);

}  // namespace dli
