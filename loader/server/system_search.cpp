#include "system_search.h"

#include <cstdio>
#include <sstream>

namespace piox_load {

namespace {

constexpr const char* kLoader = "/lib64/ld-linux-x86-64.so.2";

bool run(const std::string& command, std::string& output)
{
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr)
        return false;
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0)
        output.append(buffer, n);
    return pclose(pipe) == 0;
}

// `key="value"` lines of --list-diagnostics.
std::string quoted_value(const std::string& line)
{
    size_t open = line.find('"'), close = line.rfind('"');
    return open == std::string::npos || close <= open ? "" : line.substr(open + 1, close - open - 1);
}

void read_diagnostics(const std::string& text, SystemSearch& search)
{
    std::vector<std::string> hwcaps;
    unsigned long active = 0;
    std::string platform;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("dl_hwcaps_subdirs=", 0) == 0) {
            std::istringstream names(quoted_value(line));
            for (std::string name; std::getline(names, name, ':');)
                hwcaps.push_back(name);
        } else if (line.rfind("dl_hwcaps_subdirs_active=", 0) == 0) {
            active = std::stoul(line.substr(line.find('=') + 1), nullptr, 0);
        } else if (line.rfind("dl_platform=", 0) == 0) {
            platform = quoted_value(line);
        } else if (line.rfind("path.system_dirs[", 0) == 0) {
            std::string dir = quoted_value(line);
            if (dir.size() > 1 && dir.back() == '/')
                dir.pop_back();
            search.system_directories.push_back(dir);
        }
    }
    // Bit i of the mask is the i-th subdirectory from the end (the least capable is bit 0).
    for (size_t i = 0; i < hwcaps.size(); i++)
        if (active & (1ul << (hwcaps.size() - 1 - i)))
            search.subdirectories.push_back("glibc-hwcaps/" + hwcaps[i]);
    if (!platform.empty()) {
        for (const char* legacy : {"tls/%s/%s", "tls/%s", "tls", "%s/%s", "%s"}) {
            std::string dir = legacy;
            for (size_t at; (at = dir.find("%s")) != std::string::npos;)
                dir.replace(at, 2, platform);
            search.subdirectories.push_back(dir);
        }
    }
}

// "\tlibz.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libz.so.1"; the first entry
// of a name wins, as the loader's lookup does.
void read_cache(const std::string& text, SystemSearch& search)
{
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        size_t arrow = line.find(" => "), paren = line.find(" (");
        if (arrow == std::string::npos || paren == std::string::npos || paren > arrow)
            continue;
        if (line.find("x86-64", paren) > arrow)
            continue;
        size_t start = line.find_first_not_of(" \t");
        search.cache.emplace(line.substr(start, paren - start), line.substr(arrow + 4));
    }
}

}  // namespace

SystemSearch SystemSearch::of_this_node(std::string& error)
{
    SystemSearch search;
    std::string diagnostics, cache;
    if (!run(std::string(kLoader) + " --list-diagnostics", diagnostics)) {
        error = std::string("cannot run ") + kLoader + " --list-diagnostics";
        return search;
    }
    read_diagnostics(diagnostics, search);
    if (search.system_directories.empty())
        error = "ld.so --list-diagnostics names no system directories";
    if (run("/sbin/ldconfig -p 2>/dev/null", cache))
        read_cache(cache, search);
    return search;
}

}  // namespace piox_load
