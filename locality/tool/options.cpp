// options.cpp - parsing piox-locality's command line.
#include "options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace locality_tool {
namespace {

std::vector<std::string> split_commas(const std::string &text) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (true) {
        size_t comma = text.find(',', start);
        parts.push_back(text.substr(start, comma - start));
        if (comma == std::string::npos) return parts;
        start = comma + 1;
    }
}

bool whole_number(const std::string &text, long long low, long long high, long long &value) {
    if (text.empty() || text[0] < '0' || text[0] > '9') return false;
    errno = 0;
    char *end = nullptr;
    value = std::strtoll(text.c_str(), &end, 10);
    return errno == 0 && !*end && value >= low && value <= high;
}

}  // namespace

const char *usage_text() {
    return "usage: piox-locality [options] FILE\n"
           "       mpiexec -n N piox-locality [options] FILE\n"
           "Prints where the chunks of FILE are stored, each host's share, and the assignment\n"
           "DL-MPI's probability scheduler would make (DLI_Sched_static).\n"
           "  --hosts H1,H2,...   the hosts to report on and to place ranks on\n"
           "                      (default: the job's hosts under mpiexec, else the hosts\n"
           "                      the chunk table names)\n"
           "  --ranks N           ranks to assign chunks to, placed round robin over the\n"
           "                      hosts (default: one per host, or the job's ranks)\n"
           "  --speeds S1,S2,...  relative speed of each host (default: all equal)\n"
           "  --seed S            the scheduler's seed (default 1)\n"
           "  --hint KEY=VALUE    a dli_* hint, e.g. dli_ceph_conf=/etc/ceph/ceph.conf\n"
           "  --rows N            chunk rows to print (default 64; 0: all)\n"
           "  -h, --help          this text\n"
           "FILE: a path, ceph://[FS]/PATH, webhdfs://HOST:PORT/PATH or hdfs://HOST/PATH.\n"
           "Exit status: 0 done, 1 the storage or library failed, 2 usage error.\n";
}

std::string parse_options(int argc, char **argv, Options &options) {
    options = Options{};
    for (int a = 1; a < argc; ++a) {
        std::string word = argv[a];
        auto value = [&](std::string &out) {
            if (a + 1 >= argc) return false;
            out = argv[++a];
            return true;
        };
        std::string text;
        long long number = 0;
        if (word == "-h" || word == "--help") {
            options.help = true;
        } else if (word == "--hosts") {
            if (!value(text)) return "--hosts needs a list of host names";
            options.hosts = split_commas(text);
            for (const std::string &host : options.hosts)
                if (host.empty()) return "--hosts " + text + ": an empty host name";
        } else if (word == "--ranks") {
            if (!value(text) || !whole_number(text, 1, 1 << 24, number))
                return "--ranks needs a whole number from 1 to 16777216";
            options.ranks = static_cast<int>(number);
        } else if (word == "--speeds") {
            if (!value(text)) return "--speeds needs a list of numbers";
            for (const std::string &part : split_commas(text)) {
                char *end = nullptr;
                double speed = std::strtod(part.c_str(), &end);
                if (part.empty() || *end || !std::isfinite(speed) || speed <= 0)
                    return "--speeds " + text + ": each speed must be a positive number";
                options.speeds.push_back(speed);
            }
        } else if (word == "--seed") {
            if (!value(text) || !whole_number(text, 0, INT64_MAX, number))
                return "--seed needs a whole number";
            options.seed = static_cast<uint64_t>(number);
        } else if (word == "--hint") {
            if (!value(text) || text.find('=') == std::string::npos || text[0] == '=')
                return "--hint needs KEY=VALUE";
            size_t eq = text.find('=');
            options.hints.emplace_back(text.substr(0, eq), text.substr(eq + 1));
        } else if (word == "--rows") {
            if (!value(text) || !whole_number(text, 0, INT32_MAX, number))
                return "--rows needs a whole number";
            options.rows = static_cast<int>(number);
        } else if (word == "--") {
            if (a + 1 < argc) options.file = argv[++a];
            if (a + 1 < argc) return "only one FILE may be given";
        } else if (word.size() > 1 && word[0] == '-') {
            return "unknown option " + word;
        } else if (!options.file.empty()) {
            return "only one FILE may be given";
        } else {
            options.file = word;
        }
    }
    if (options.help) return "";
    if (options.file.empty()) return "no FILE given";
    if (!options.speeds.empty() && options.hosts.empty())
        return "--speeds needs --hosts (one speed per host)";
    if (!options.speeds.empty() && options.speeds.size() != options.hosts.size())
        return "--speeds has " + std::to_string(options.speeds.size()) + " values for " +
               std::to_string(options.hosts.size()) + " hosts";
    return "";
}

}  // namespace locality_tool
