// options.cpp - getopt_long over pftw's options, with find's value syntax.
#include "options.h"

#include <getopt.h>
#include <pwd.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <limits>

namespace pftw_tool {
namespace {

enum OptionId {
    opt_algorithm = 256, opt_threads, opt_split, opt_stat, opt_no_stat, opt_xdev,
    opt_max_depth, opt_hint, opt_name, opt_type, opt_size, opt_mtime, opt_newer, opt_user,
    opt_print, opt_print0, opt_json, opt_du, opt_stats_matrix, opt_progress, opt_help
};

const option long_options[] = {
    {"algorithm", required_argument, nullptr, opt_algorithm},
    {"threads", required_argument, nullptr, opt_threads},
    {"split", required_argument, nullptr, opt_split},
    {"stat", no_argument, nullptr, opt_stat},
    {"no-stat", no_argument, nullptr, opt_no_stat},
    {"xdev", no_argument, nullptr, opt_xdev},
    {"max-depth", required_argument, nullptr, opt_max_depth},
    {"hint", required_argument, nullptr, opt_hint},
    {"name", required_argument, nullptr, opt_name},
    {"type", required_argument, nullptr, opt_type},
    {"size", required_argument, nullptr, opt_size},
    {"mtime", required_argument, nullptr, opt_mtime},
    {"newer", required_argument, nullptr, opt_newer},
    {"user", required_argument, nullptr, opt_user},
    {"print", no_argument, nullptr, opt_print},
    {"print0", no_argument, nullptr, opt_print0},
    {"json", no_argument, nullptr, opt_json},
    {"du", no_argument, nullptr, opt_du},
    {"stats-matrix", required_argument, nullptr, opt_stats_matrix},
    {"progress", no_argument, nullptr, opt_progress},
    {"help", no_argument, nullptr, opt_help},
    {nullptr, 0, nullptr, 0},
};

const char *option_name(int id) {
    for (const option *o = long_options; o->name; ++o)
        if (o->val == id)
            return o->name;
    return "?";
}

std::string invalid(int id, const std::string &value, const char *expected) {
    return std::string("invalid value '") + value + "' for --" + option_name(id) + ": " + expected;
}

// Decimal digits only (no sign, no spaces), at most max.
bool parse_count(const std::string &text, uint64_t max, uint64_t &out) {
    if (text.empty() || text.size() > 20)
        return false;
    uint64_t value = 0;
    for (char c : text) {
        if (c < '0' || c > '9')
            return false;
        const uint64_t digit = uint64_t(c - '0');
        if (value > (max - digit) / 10)
            return false;
        value = value * 10 + digit;
    }
    out = value;
    return true;
}

// find's "+N" / "-N" / "N": strips the prefix and returns the comparison.
Comparison take_comparison(std::string &text) {
    if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
        const Comparison how = text[0] == '+' ? Comparison::greater : Comparison::less;
        text.erase(0, 1);
        return how;
    }
    return Comparison::equal;
}

// Unit suffixes of find -size. No suffix means bytes here (find's default is
// 512-byte blocks, spelled "b" here), because a byte count is what people expect.
bool unit_bytes_of(char suffix, uint64_t &bytes) {
    switch (suffix) {
    case 'c': bytes = 1; return true;
    case 'w': bytes = 2; return true;
    case 'b': bytes = 512; return true;
    case 'k': bytes = uint64_t(1) << 10; return true;
    case 'M': bytes = uint64_t(1) << 20; return true;
    case 'G': bytes = uint64_t(1) << 30; return true;
    default: return false;
    }
}

bool parse_size(std::string text, SizeTest &test) {
    test.how = take_comparison(text);
    test.unit_bytes = 1;
    if (!text.empty() && !(text.back() >= '0' && text.back() <= '9')) {
        if (!unit_bytes_of(text.back(), test.unit_bytes))
            return false;
        text.pop_back();
    }
    return parse_count(text, std::numeric_limits<uint64_t>::max(), test.count);
}

bool parse_mtime(std::string text, MtimeTest &test) {
    test.how = take_comparison(text);
    uint64_t days = 0;
    // Bounded so that days * 86400 fits comfortably in 64 bits.
    if (!parse_count(text, uint64_t(1) << 40, days))
        return false;
    test.days = int64_t(days);
    return true;
}

bool parse_type(const std::string &text, PFTW_Type &type) {
    if (text == "f") type = PFTW_TYPE_FILE;
    else if (text == "d") type = PFTW_TYPE_DIR;
    else if (text == "l") type = PFTW_TYPE_SYMLINK;
    else return false;
    return true;
}

bool one_of(const std::string &value, std::initializer_list<const char *> allowed) {
    for (const char *a : allowed)
        if (value == a)
            return true;
    return false;
}

std::string parse_hint(const std::string &text, Options &options) {
    const size_t equals = text.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == text.size())
        return invalid(opt_hint, text, "KEY=VALUE expected");
    std::string key = text.substr(0, equals), value = text.substr(equals + 1);
    if (key.compare(0, 5, "pftw_") != 0)
        return invalid(opt_hint, text, "only pftw_* hints go to the walk");
    if (key.size() >= size_t(MPI_MAX_INFO_KEY) || value.size() >= size_t(MPI_MAX_INFO_VAL))
        return invalid(opt_hint, text, "key or value too long for MPI_Info");
    options.hints.emplace_back(std::move(key), std::move(value));
    return "";
}

// The option with id and its argument (nullptr for flags).
std::string apply_option(int id, const char *argument, Options &options) {
    const std::string value = argument ? argument : "";
    uint64_t number = 0;
    auto set_output = [&](OutputMode mode) -> std::string {
        if (options.output != OutputMode::summary && options.output != mode)
            return "only one of --print, --print0 and --json can be given";
        options.output = mode;
        return "";
    };
    switch (id) {
    case opt_algorithm:
        if (!one_of(value, {"drqs", "pa-drqs", "h-drqs"}))
            return invalid(id, value, "drqs, pa-drqs or h-drqs expected");
        options.hints.emplace_back("pftw_algorithm", value);
        return "";
    case opt_threads:
        if (!parse_count(value, 4096, number) || number == 0)
            return invalid(id, value, "a thread count from 1 to 4096 expected");
        options.hints.emplace_back("pftw_threads", value);
        return "";
    case opt_split:
        if (!one_of(value, {"random", "equal"}))
            return invalid(id, value, "random or equal expected");
        options.hints.emplace_back("pftw_split", value);
        return "";
    case opt_stat: options.hints.emplace_back("pftw_stat", "yes"); return "";
    case opt_no_stat: options.hints.emplace_back("pftw_stat", "no"); return "";
    case opt_xdev: options.hints.emplace_back("pftw_xdev", "yes"); return "";
    case opt_max_depth:
        if (!parse_count(value, std::numeric_limits<int>::max(), number))
            return invalid(id, value, "a depth of 0 or more expected");
        options.hints.emplace_back("pftw_max_depth", value);
        return "";
    case opt_hint: return parse_hint(value, options);
    case opt_name: options.selection.name_glob = value; return "";
    case opt_type: {
        PFTW_Type type;
        if (!parse_type(value, type))
            return invalid(id, value, "f, d or l expected");
        options.selection.type = type;
        return "";
    }
    case opt_size: {
        SizeTest test;
        if (!parse_size(value, test))
            return invalid(id, value, "[+-]N[cwbkMG] expected");
        options.selection.size = test;
        return "";
    }
    case opt_mtime: {
        MtimeTest test;
        if (!parse_mtime(value, test))
            return invalid(id, value, "[+-]N (whole days) expected");
        options.selection.mtime = test;
        return "";
    }
    case opt_newer:
        if (value.empty())
            return invalid(id, value, "a file name expected");
        options.newer_file = value;
        return "";
    case opt_user:
        if (value.empty())
            return invalid(id, value, "a user name or uid expected");
        options.user = value;
        return "";
    case opt_print: return set_output(OutputMode::print);
    case opt_print0: return set_output(OutputMode::print0);
    case opt_json: return set_output(OutputMode::json);
    case opt_du: options.du = true; return "";
    case opt_stats_matrix:
        if (value.empty())
            return invalid(id, value, "a file name expected");
        options.stats_matrix_file = value;
        return "";
    case opt_progress: options.progress = true; return "";
    case opt_help: options.help = true; return "";
    }
    return "internal error: unhandled option";
}

// Combinations that cannot work, checked once everything is known.
std::string check_combination(const Options &options) {
    const std::string stat = options.hint("pftw_stat", "yes");
    if (stat != "yes" && stat != "no")
        return "invalid value '" + stat + "' for hint pftw_stat: yes or no expected";
    if (options.du && (options.output == OutputMode::print || options.output == OutputMode::print0))
        return "--du cannot be combined with --print or --print0";
    if (!options.stat()) {
        if (options.selection.needs_stat() || !options.newer_file.empty() || !options.user.empty())
            return "--size, --mtime, --newer and --user need the stat that --no-stat turns off";
        if (options.du)
            return "--du needs the stat that --no-stat turns off";
    }
    return "";
}

}  // namespace

std::string Options::hint(const std::string &key, const std::string &fallback) const {
    for (auto it = hints.rbegin(); it != hints.rend(); ++it)
        if (it->first == key)
            return it->second;
    return fallback;
}

bool Options::has_hint(const std::string &key) const {
    for (const auto &h : hints)
        if (h.first == key)
            return true;
    return false;
}

std::string parse_options(int argc, char *const argv[], Options &options) {
    options = Options();
    optind = 0;  // GNU getopt: 0 re-initialises its state, so parsing can run again
    opterr = 0;  // messages are ours, printed by rank 0 only
    for (;;) {
        const int id = getopt_long(argc, argv, ":", long_options, nullptr);
        if (id == -1)
            break;
        if (id == ':')
            return std::string("option '--") + option_name(optopt) + "' requires an argument";
        if (id == '?') {
            const char *word = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
            if (optopt && optopt < 256)
                return std::string("unrecognized option '-") + char(optopt) + "'";
            return std::string("unrecognized or ambiguous option '") + word + "'";
        }
        std::string error = apply_option(id, optarg, options);
        if (!error.empty())
            return error;
    }
    for (int i = optind; i < argc; ++i)
        options.paths.emplace_back(argv[i]);
    if (options.help)
        return "";
    for (const std::string &path : options.paths)
        if (path.empty())
            return "empty path";
    if (options.paths.empty())
        options.paths.emplace_back(".");
    return check_combination(options);
}

std::string resolve_references(Options &options) {
    if (!options.newer_file.empty()) {
        struct stat st;
        if (lstat(options.newer_file.c_str(), &st) != 0)
            return "--newer '" + options.newer_file + "': " + std::strerror(errno);
        options.selection.newer_than = st.st_mtim;
    }
    if (!options.user.empty()) {
        // A name first, then a numeric uid, as find -user does.
        errno = 0;
        if (const passwd *pw = getpwnam(options.user.c_str())) {
            options.selection.user = pw->pw_uid;
        } else {
            uint64_t uid = 0;
            if (!parse_count(options.user, std::numeric_limits<uid_t>::max() - 1, uid))
                return "--user '" + options.user + "' is not the name of a known user";
            options.selection.user = uid_t(uid);
        }
    }
    return "";
}

const char *usage_text() {
    return
        "Usage: mpiexec -n N pftw [OPTION]... [PATH]...\n"
        "Walk each PATH (default: .) in parallel over MPI with libpftw; select entries\n"
        "like find(1) and print them, their sizes per child (--du) or the walk's figures.\n"
        "\n"
        "Walk:\n"
        "  --algorithm drqs|pa-drqs|h-drqs   work sharing between ranks (default h-drqs)\n"
        "  --threads N           threads per rank that read and visit\n"
        "  --split random|equal  how a queue is split for a peer (default random)\n"
        "  --stat, --no-stat     stat every entry (default: on; sizes need it)\n"
        "  --xdev                stay on each PATH's file system\n"
        "  --max-depth N         descend at most N levels (0: PATH only)\n"
        "  --hint KEY=VALUE      any pftw_* hint of PFTW_Walk (repeatable)\n"
        "\n"
        "Selection (all given must hold):\n"
        "  --name GLOB           the entry's own name matches GLOB (find -name)\n"
        "  --type f|d|l          file, directory or symbolic link\n"
        "  --size [+-]N[cwbkMG]  size rounded up to units is more/less than/exactly N;\n"
        "                        no suffix means bytes (find: 512-byte blocks, here 'b')\n"
        "  --mtime [+-]N         modified N whole days before the walk began (find -mtime)\n"
        "  --newer FILE          modified strictly after FILE\n"
        "  --user NAME|UID       owned by that user\n"
        "\n"
        "Output (from rank 0; default: a summary of the walk):\n"
        "  --print               selected paths, one per line\n"
        "  --print0              selected paths, each ended by a NUL byte\n"
        "  --json                the walk's figures as one JSON object\n"
        "  --du                  apparent bytes under each child of each PATH (du -s -b)\n"
        "  --stats-matrix FILE   messages and bytes between every pair of ranks, as CSV\n"
        "  --progress            a progress line on stderr every 2 s (on when stderr is a tty)\n"
        "  --help                this text\n"
        "\n"
        "Exit status: 0; 1 if an entry could not be read; 2 for a usage error.\n";
}

}  // namespace pftw_tool
