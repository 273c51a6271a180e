// webhdfs_name.cpp - parsing webhdfs:// and hdfs:// names, and building WebHDFS URLs.
#include "providers/webhdfs_name.h"

#include "error.h"

namespace dli {
namespace {

// ASCII only, whatever the program's locale says about bytes above 0x7f.
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
bool is_alnum(unsigned char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_hex(unsigned char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

bool is_unreserved(unsigned char c) { return is_alnum(c) || c == '-' || c == '.' || c == '_' || c == '~'; }

std::string percent_encode(const std::string &text, bool keep_slash) {
    static const char hex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(text.size());
    for (unsigned char c : text) {
        if (is_unreserved(c) || (keep_slash && c == '/')) {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

[[noreturn]] void refuse(const std::string &name, const std::string &why) {
    throw Error(DLI_ERR_ARG, name + ": " + why);
}

// Host names and IPv4 addresses: letters, digits, '-', '.', '_'; IPv6 in brackets.
bool is_host(const std::string &host) {
    if (host.empty()) return false;
    if (host.front() == '[') {
        if (host.size() < 3 || host.back() != ']') return false;
        for (size_t i = 1; i + 1 < host.size(); ++i)
            if (!is_hex(static_cast<unsigned char>(host[i])) && host[i] != ':' && host[i] != '.')
                return false;
        return true;
    }
    for (unsigned char c : host)
        if (!is_alnum(c) && c != '-' && c != '.' && c != '_') return false;
    return true;
}

// A whole decimal number from 1 to 65535, or -1.
int parse_port(const std::string &text) {
    if (text.empty() || text.size() > 5) return -1;
    int port = 0;
    for (unsigned char c : text) {
        if (!is_digit(c)) return -1;
        port = port * 10 + (c - '0');
    }
    return port >= 1 && port <= 65535 ? port : -1;
}

}  // namespace

WebhdfsName parse_webhdfs_name(const std::string &name, int default_http_port) {
    for (unsigned char c : name)
        if (c < 0x20 || c == 0x7f) refuse(name, "a control byte in an HDFS name");
    WebhdfsName out;
    size_t after_scheme = name.find("://");
    if (after_scheme == std::string::npos) refuse(name, "not a webhdfs:// or hdfs:// name");
    out.scheme = name.substr(0, after_scheme);
    if (out.scheme != "webhdfs" && out.scheme != "hdfs") refuse(name, "not a webhdfs:// or hdfs:// name");

    size_t start = after_scheme + 3;
    size_t slash = name.find('/', start);
    out.authority = name.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    out.path = slash == std::string::npos ? "/" : name.substr(slash);
    if (out.authority.empty()) refuse(name, "no NameNode host in the name");
    if (out.authority.find('@') != std::string::npos)
        refuse(name, "user information in the name (use the dli_webhdfs_user hint)");

    // The port is after the last ':' outside an IPv6 literal's brackets.
    size_t bracket = out.authority.rfind(']');
    size_t colon = out.authority.rfind(':');
    bool has_port = colon != std::string::npos && (bracket == std::string::npos || colon > bracket);
    out.host = has_port ? out.authority.substr(0, colon) : out.authority;
    if (!is_host(out.host)) refuse(name, "\"" + out.host + "\" is not a host name");
    int port = has_port ? parse_port(out.authority.substr(colon + 1)) : 0;
    if (port < 0) refuse(name, "\"" + out.authority.substr(colon + 1) + "\" is not a port from 1 to 65535");
    // An hdfs:// port is the NameNode's RPC port: WebHDFS is on its HTTP port.
    out.http_port = out.scheme == "webhdfs" && has_port ? port : default_http_port;

    // "." and ".." would let the URL climb out of /webhdfs/v1; HDFS has no such names.
    for (size_t at = 0; at <= out.path.size();) {
        size_t end = out.path.find('/', at);
        if (end == std::string::npos) end = out.path.size();
        std::string segment = out.path.substr(at, end - at);
        if (segment == "." || segment == "..") refuse(name, "a \"" + segment + "\" segment in an HDFS path");
        at = end + 1;
    }
    return out;
}

std::string percent_encode_path(const std::string &path) { return percent_encode(path, true); }

std::string percent_encode_value(const std::string &value) { return percent_encode(value, false); }

WebhdfsUrl webhdfs_url(const WebhdfsName &name, const std::string &op, const std::string &user,
                       const std::string &delegation) {
    std::string base = "http://" + name.host + ":" + std::to_string(name.http_port) + "/webhdfs/v1" +
                       percent_encode_path(name.path) + "?op=" + op;
    if (!user.empty()) base += "&user.name=" + percent_encode_value(user);
    WebhdfsUrl url{base, base};
    if (!delegation.empty()) {
        url.fetch += "&delegation=" + percent_encode_value(delegation);
        url.shown += "&delegation=***";
    }
    return url;
}

std::string webhdfs_child_name(const WebhdfsName &directory, const std::string &suffix) {
    std::string path = directory.path;
    if (path.empty() || path.back() != '/') path += '/';
    return directory.scheme + "://" + directory.authority + path + suffix;
}

}  // namespace dli
