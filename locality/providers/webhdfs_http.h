// webhdfs_http.h - one HTTP GET through libcurl, bounded in time and in size, for the
// WebHDFS client. It reports what the server answered, whatever the status; only a
// request that got no complete answer is an error here.
#pragma once
#include <cstddef>
#include <string>

namespace dli {

struct HttpReply {
    long status = 0;           // 200, 404, ...
    std::string body;
    std::string content_type;  // as sent, "" when none
    std::string location;      // a redirect's target, "" when none (never followed)
};

// The most a WebHDFS answer may hold: a 100,000-block file's list is about 32 MB.
inline constexpr size_t webhdfs_max_body = size_t{256} << 20;

// GET URL. SHOWN is the URL as messages name it (no credentials). The whole request,
// connecting included, is limited to TIMEOUT_MS. Throws Error with
//   DLI_ERR_CONNECT   refused, unresolvable, reset, or out of time;
//   DLI_ERR_PROTOCOL  an answer cut short, not HTTP, or larger than MAX_BODY;
//   DLI_ERR_NOMEM     libcurl ran out of memory.
HttpReply http_get(const std::string &url, const std::string &shown, long timeout_ms,
                   size_t max_body = webhdfs_max_body);

}  // namespace dli
