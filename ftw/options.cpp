// options.cpp - parsing the pftw_* hints.
#include "options.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace pftw {

namespace {

// The value of hint `key`, or false when it is absent.
bool read_hint(MPI_Info info, const char *key, std::string *value)
{
    if (info == MPI_INFO_NULL)
        return false;
    int length = 0, found = 0;
    MPI_Info_get_valuelen(info, key, &length, &found);
    if (!found)
        return false;
    std::string text(length + 1, '\0');
    MPI_Info_get(info, key, length + 1, text.data(), &found);
    text.resize(std::strlen(text.c_str()));
    *value = text;
    return true;
}

bool parse_int(const std::string &text, int low, int high, int *out)
{
    if (text.empty())
        return false;
    errno = 0;
    char *end = nullptr;
    long value = std::strtol(text.c_str(), &end, 10);
    if (errno || *end != '\0' || value < low || value > high)
        return false;
    *out = static_cast<int>(value);
    return true;
}

bool parse_bool(const std::string &text, bool *out)
{
    if (text == "yes" || text == "true" || text == "1" || text == "enable") {
        *out = true;
        return true;
    }
    if (text == "no" || text == "false" || text == "0" || text == "disable") {
        *out = false;
        return true;
    }
    return false;
}

}  // namespace

const char *algorithm_name(Algorithm algorithm)
{
    switch (algorithm) {
    case Algorithm::drqs: return "drqs";
    case Algorithm::pa_drqs: return "pa-drqs";
    default: return "h-drqs";
    }
}

const char *split_name(Split split) { return split == Split::equal ? "equal" : "random"; }

std::string WalkOptions::fingerprint() const
{
    return std::string(algorithm_name(algorithm)) + " threads=" + std::to_string(threads) +
           " split=" + split_name(split) + " stat=" + (stat ? "yes" : "no") +
           " xdev=" + (xdev ? "yes" : "no") + " max_depth=" + std::to_string(max_depth);
}

bool parse_options(MPI_Info info, WalkOptions *options, std::string *problem)
{
    std::string value;
    auto bad = [&](const char *key) {
        *problem = std::string(key) + "=" + value;
        return false;
    };
    if (read_hint(info, "pftw_algorithm", &value)) {
        if (value == "drqs")
            options->algorithm = Algorithm::drqs;
        else if (value == "pa-drqs")
            options->algorithm = Algorithm::pa_drqs;
        else if (value == "h-drqs")
            options->algorithm = Algorithm::h_drqs;
        else
            return bad("pftw_algorithm");
    }
    if (read_hint(info, "pftw_threads", &value) && !parse_int(value, 1, 1024, &options->threads))
        return bad("pftw_threads");
    if (read_hint(info, "pftw_split", &value)) {
        if (value == "random")
            options->split = Split::random;
        else if (value == "equal")
            options->split = Split::equal;
        else
            return bad("pftw_split");
    }
    if (read_hint(info, "pftw_stat", &value) && !parse_bool(value, &options->stat))
        return bad("pftw_stat");
    if (read_hint(info, "pftw_xdev", &value) && !parse_bool(value, &options->xdev))
        return bad("pftw_xdev");
    if (read_hint(info, "pftw_max_depth", &value) &&
        !parse_int(value, -1, INT_MAX, &options->max_depth))
        return bad("pftw_max_depth");
    return true;
}

}  // namespace pftw
