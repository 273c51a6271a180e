// webhdfs_http.cpp - the HTTP GET of the WebHDFS client, over libcurl.
#include "providers/webhdfs_http.h"

#include <curl/curl.h>

#include <memory>
#include <mutex>

#include "error.h"

namespace dli {
namespace {

// curl_global_init is not thread-safe and must run once before any handle exists.
void init_curl_once() {
    static std::once_flag once;
    static CURLcode result = CURLE_OK;
    std::call_once(once, [] { result = curl_global_init(CURL_GLOBAL_DEFAULT); });
    if (result != CURLE_OK)
        throw Error(DLI_ERR_IO, std::string("libcurl cannot start: ") + curl_easy_strerror(result));
}

struct Sink {
    std::string *body;
    size_t limit;
    bool overflowed = false;
};

size_t append_body(char *data, size_t size, size_t count, void *user) {
    auto *sink = static_cast<Sink *>(user);
    size_t bytes = size * count;
    if (bytes > sink->limit - sink->body->size()) {
        sink->overflowed = true;
        return 0;  // libcurl stops the transfer with CURLE_WRITE_ERROR
    }
    sink->body->append(data, bytes);
    return bytes;
}

// Which DLI_ERR_* a failed transfer is: no answer at all, or a broken one.
int code_for_curl(CURLcode result) {
    switch (result) {
    case CURLE_OUT_OF_MEMORY:
        return DLI_ERR_NOMEM;
    case CURLE_PARTIAL_FILE:
    case CURLE_GOT_NOTHING:
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_FILESIZE_EXCEEDED:
    case CURLE_WRITE_ERROR:
    case CURLE_BAD_CONTENT_ENCODING:
    case CURLE_UNSUPPORTED_PROTOCOL:
        return DLI_ERR_PROTOCOL;
    default:  // refused, unresolved, timed out, reset, ...
        return DLI_ERR_CONNECT;
    }
}

using Handle = std::unique_ptr<CURL, decltype(&curl_easy_cleanup)>;

}  // namespace

HttpReply http_get(const std::string &url, const std::string &shown, long timeout_ms, size_t max_body) {
    init_curl_once();
    Handle curl(curl_easy_init(), &curl_easy_cleanup);
    if (!curl) throw Error(DLI_ERR_NOMEM, "GET " + shown + ": libcurl cannot make a handle");
    HttpReply reply;
    Sink sink{&reply.body, max_body};
    char detail[CURL_ERROR_SIZE] = {};
    CURL *h = curl.get();
    curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);  // metadata calls do not redirect
    curl_easy_setopt(h, CURLOPT_PATH_AS_IS, 1L);      // the path is already what we mean
    curl_easy_setopt(h, CURLOPT_PROXY, "");           // NameNodes are reached directly
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);        // no SIGALRM: MPI programs have threads
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(max_body));
    curl_easy_setopt(h, CURLOPT_USERAGENT, "libdli");
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, append_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, detail);

    CURLcode result = curl_easy_perform(h);
    if (result != CURLE_OK) {
        if (sink.overflowed || result == CURLE_FILESIZE_EXCEEDED)
            throw Error(DLI_ERR_PROTOCOL, "GET " + shown + ": the answer exceeds " +
                                              std::to_string(max_body >> 20) + " MiB");
        std::string why = detail[0] ? detail : curl_easy_strerror(result);
        if (result == CURLE_OPERATION_TIMEDOUT)
            why = "no answer within " + std::to_string(timeout_ms) + " ms (" + why + ")";
        throw Error(code_for_curl(result), "GET " + shown + ": " + why);
    }
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &reply.status);
    const char *type = nullptr;
    if (curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &type) == CURLE_OK && type) reply.content_type = type;
    const char *target = nullptr;
    if (curl_easy_getinfo(h, CURLINFO_REDIRECT_URL, &target) == CURLE_OK && target) reply.location = target;
    return reply;
}

}  // namespace dli
