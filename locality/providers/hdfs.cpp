// hdfs.cpp - the hdfs provider: a file's blocks and their DataNodes from the NameNode's
// WebHDFS REST API (no HDFS client library, no JVM).
//
//   chunks:          GET /webhdfs/v1/PATH?op=GETFILEBLOCKLOCATIONS (Hadoop 3.2+); when the
//                    NameNode does not know that op, op=GET_BLOCK_LOCATIONS (older ones);
//                    an empty block list is confirmed with op=GETFILESTATUS.
//   list_directory:  GET /webhdfs/v1/PATH?op=LISTSTATUS, the FILE entries, sorted.
//
// Each request carries user.name (dli_webhdfs_user) and delegation (dli_webhdfs_delegation)
// when they are set, and is bounded by dli_timeout_ms. Errors, as the NameNode reports
// them (a RemoteException JSON body with an HTTP status):
//   404 FileNotFoundException            DLI_ERR_NOENT ("Path is not a file": DLI_ERR_ARG)
//   401, 403 AccessControlException      DLI_ERR_ACCESS
//   500 and any other status             DLI_ERR_SERVER (so is a StandbyException)
//   a body that is not that JSON, a cut, oversized or malformed answer, a redirect
//                                        DLI_ERR_PROTOCOL
//   refused, unresolvable, timed out     DLI_ERR_CONNECT
#include <algorithm>

#include "error.h"
#include "providers/provider.h"
#include "providers/webhdfs_http.h"
#include "providers/webhdfs_json.h"
#include "providers/webhdfs_name.h"

namespace dli {
namespace {

// Server text inside our messages: printable, and short enough to read.
std::string quoted_server_text(const std::string &text) {
    std::string out;
    for (unsigned char c : text.substr(0, 300)) out += c < 0x20 || c == 0x7f ? ' ' : static_cast<char>(c);
    return text.size() > 300 ? out + "..." : out;
}

// A redirect's target without its query, which may carry a token.
std::string without_query(const std::string &url) { return url.substr(0, url.find('?')); }

// Old NameNodes reject an op they do not know while parsing the "op" parameter
// (400 IllegalArgumentException: Invalid value for webhdfs parameter "op": No enum
// constant ...GetOpParam.Op.GETFILEBLOCKLOCATIONS); some answer 400
// UnsupportedOperationException, and HttpFS before 3.x a bare 400.
bool op_not_supported(const HttpReply &reply, const RemoteException &remote) {
    if (reply.status != 400) return false;
    if (reply.body.empty()) return true;
    return remote.exception == "UnsupportedOperationException" ||
           (remote.exception == "IllegalArgumentException" &&
            remote.message.find("webhdfs parameter \"op\"") != std::string::npos);
}

class HdfsProvider : public Provider {
public:
    explicit HdfsProvider(const Config &config) : config_(config) {}
    const char *name() const override { return "hdfs"; }

    ChunkTable chunks(const std::string &name) override {
        WebhdfsName where = parse_webhdfs_name(name, config_.webhdfs_port);
        ChunkTable table;
        Answer blocks = ask(name, where, "GETFILEBLOCKLOCATIONS");
        if (blocks.reply.status == 200) {
            table = parse_block_locations(blocks.reply.body, blocks.source);
            if (table.chunks.empty()) table.file_size = size_without_blocks(name, where);
        } else if (op_not_supported(blocks.reply, blocks.remote)) {
            Answer located = ask(name, where, "GET_BLOCK_LOCATIONS");
            if (located.reply.status != 200) fail(located);
            table = parse_located_blocks(located.reply.body, located.source);
        } else {
            fail(blocks);
        }
        table.file = name;
        return table;
    }

    std::vector<std::string> list_directory(const std::string &name) override {
        WebhdfsName where = parse_webhdfs_name(name, config_.webhdfs_port);
        Answer listing = ask(name, where, "LISTSTATUS");
        if (listing.reply.status != 200) fail(listing);
        std::vector<DirectoryEntry> entries = parse_directory_listing(listing.reply.body, listing.source);
        // LISTSTATUS of a file lists the file itself, with an empty suffix.
        if (entries.size() == 1 && entries[0].suffix.empty())
            throw Error(DLI_ERR_ARG, listing.source + ": a file, not a directory");
        std::vector<std::string> files;
        for (const DirectoryEntry &entry : entries) {
            if (entry.suffix.empty())
                throw Error(DLI_ERR_PROTOCOL, listing.source + ": an entry with an empty pathSuffix");
            if (entry.type == "FILE") files.push_back(webhdfs_child_name(where, entry.suffix));
        }
        std::sort(files.begin(), files.end());
        return files;
    }

private:
    struct Answer {
        WebhdfsUrl url;
        std::string source;      // "NAME: GET URL", how messages about this answer begin
        HttpReply reply;
        RemoteException remote;  // what an error body said, when it is that JSON
    };

    Answer ask(const std::string &name, const WebhdfsName &where, const char *op) {
        Answer answer;
        answer.url = webhdfs_url(where, op, config_.webhdfs_user, config_.webhdfs_delegation);
        answer.source = name + ": GET " + answer.url.shown;
        try {
            answer.reply = http_get(answer.url.fetch, answer.url.shown, config_.timeout_ms);
        } catch (const Error &e) {
            throw Error(e.code(), name + ": " + e.what());
        }
        if (answer.reply.status != 200) answer.remote = parse_remote_exception(answer.reply.body);
        return answer;
    }

    // No blocks: an empty file, or something that is not a file with bytes.
    int64_t size_without_blocks(const std::string &name, const WebhdfsName &where) {
        Answer status = ask(name, where, "GETFILESTATUS");
        if (status.reply.status != 200) fail(status);
        FileStatus file = parse_file_status(status.reply.body, status.source);
        if (file.type == "DIRECTORY") throw Error(DLI_ERR_ARG, status.source + ": a directory, not a file");
        if (file.length != 0)
            throw Error(DLI_ERR_PROTOCOL, status.source + ": the file has " +
                                              std::to_string(file.length) + " bytes but the NameNode listed no blocks");
        return 0;
    }

    // An answer other than 200, as a DLI_ERR_* code and a message naming the file and URL.
    [[noreturn]] static void fail(const Answer &answer) {
        const HttpReply &reply = answer.reply;
        std::string prefix = answer.source + ": HTTP " + std::to_string(reply.status);
        if (reply.status >= 300 && reply.status < 400)
            throw Error(DLI_ERR_PROTOCOL, prefix + " redirect to " + quoted_server_text(without_query(reply.location)) +
                                              " (a NameNode's metadata answer does not redirect)");
        const RemoteException &remote = answer.remote;
        if (!remote.found && reply.status != 401) {
            std::string body = reply.body.empty() ? "an empty body"
                               : "a body that is not a RemoteException (" +
                                     (reply.content_type.empty() ? std::string("no type") : quoted_server_text(reply.content_type)) +
                                     "): " + quoted_server_text(reply.body);
            throw Error(DLI_ERR_PROTOCOL, prefix + " with " + body);
        }
        std::string said = remote.found ? " " + quoted_server_text(remote.exception) + ": " + quoted_server_text(remote.message)
                                        : " authentication required (Kerberos is not spoken here: use dli_webhdfs_delegation)";
        bool standby = remote.java_class == "org.apache.hadoop.ipc.StandbyException";
        int code = DLI_ERR_SERVER;
        if (reply.status == 404)
            code = remote.message.rfind("Path is not a file", 0) == 0 ? DLI_ERR_ARG : DLI_ERR_NOENT;
        else if ((reply.status == 401 || reply.status == 403) && !standby)
            code = DLI_ERR_ACCESS;
        throw Error(code, prefix + said);
    }

    Config config_;
};

}  // namespace

std::unique_ptr<Provider> make_hdfs_provider(const Config &config) {
    return std::make_unique<HdfsProvider>(config);
}

}  // namespace dli
