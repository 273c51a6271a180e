// options.h - pftw's command line: what to walk, how, what to select and print.
// Parsing is pure (no MPI, no file system) so every rank can parse the same argv and
// agree; the two options that depend on the system (--newer FILE, --user NAME) are
// resolved separately, once, on rank 0.
#ifndef PFTW_TOOL_OPTIONS_H
#define PFTW_TOOL_OPTIONS_H

#include "filter.h"

#include <string>
#include <utility>
#include <vector>

namespace pftw_tool {

enum class OutputMode { summary, print, print0, json };

struct Options {
    std::vector<std::string> paths;  // "." when none is given, as find does
    // pftw_* hints in command-line order (--algorithm etc. add theirs here too), so
    // the last setting of a key wins whichever way it was given.
    std::vector<std::pair<std::string, std::string>> hints;
    Selection selection;
    std::string newer_file;  // --newer, until resolve_references
    std::string user;        // --user, until resolve_references
    OutputMode output = OutputMode::summary;
    bool du = false;
    bool progress = false;
    std::string stats_matrix_file;
    bool help = false;

    // The last value given for a hint key, or fallback when it was never given.
    std::string hint(const std::string &key, const std::string &fallback = "") const;
    bool has_hint(const std::string &key) const;
    // pftw_stat as the tool uses it: on unless --no-stat (or pftw_stat=no).
    bool stat() const { return hint("pftw_stat", "yes") == "yes"; }
};

// Fills options from argv. Returns "" on success, else the message for a usage error
// (exit status 2). Does not print. Resets getopt's state, so it can be called again.
std::string parse_options(int argc, char *const argv[], Options &options);

// Looks up --newer's file (lstat, like find -newer without -H/-L) and --user's name
// (or numeric uid) into options.selection. Returns "" or a usage-error message.
std::string resolve_references(Options &options);

// The --help text.
const char *usage_text();

}  // namespace pftw_tool

#endif
