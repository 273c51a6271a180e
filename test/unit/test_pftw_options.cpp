/*
 * test_pftw_options - unit tests (CMocka) of the pftw tool's command line
 * (ftw/tool/options.h): each option's effect, find's value syntax, the usage errors
 * (bad values, unknown options, impossible combinations), and resolving --newer and
 * --user. Parsing is pure, so no MPI is needed.
 */
#include "options.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

extern "C" {
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
}

using namespace pftw_tool;

namespace {

// Parses "pftw" + words; returns the error ("" on success).
std::string parse(std::initializer_list<const char *> words, Options &options) {
    std::vector<std::string> storage{"pftw"};
    storage.insert(storage.end(), words.begin(), words.end());
    std::vector<char *> argv;
    for (std::string &word : storage)
        argv.push_back(word.data());
    argv.push_back(nullptr);
    return parse_options(int(storage.size()), argv.data(), options);
}

Options parsed(std::initializer_list<const char *> words) {
    Options options;
    const std::string error = parse(words, options);
    if (!error.empty())
        fail_msg("unexpected usage error: %s", error.c_str());
    return options;
}

// The words are a usage error whose message contains part.
void assert_usage_error(std::initializer_list<const char *> words, const char *part) {
    Options options;
    const std::string error = parse(words, options);
    if (error.find(part) == std::string::npos)
        fail_msg("expected an error containing '%s', got '%s'", part, error.c_str());
}

void defaults_walk_dot_with_stat(void **) {
    const Options options = parsed({});
    assert_int_equal(options.paths.size(), 1);
    assert_string_equal(options.paths[0].c_str(), ".");
    assert_true(options.stat());
    assert_true(options.output == OutputMode::summary);
    assert_false(options.du);
    assert_true(options.selection.selects_everything());
    assert_true(options.hints.empty());
}

void walk_options_become_hints(void **) {
    const Options options = parsed({"--algorithm", "pa-drqs", "--threads=3", "--split", "equal",
                                    "--xdev", "--max-depth", "0", "--no-stat", "a", "b"});
    assert_string_equal(options.hint("pftw_algorithm").c_str(), "pa-drqs");
    assert_string_equal(options.hint("pftw_threads").c_str(), "3");
    assert_string_equal(options.hint("pftw_split").c_str(), "equal");
    assert_string_equal(options.hint("pftw_xdev").c_str(), "yes");
    assert_string_equal(options.hint("pftw_max_depth").c_str(), "0");
    assert_string_equal(options.hint("pftw_stat").c_str(), "no");
    assert_false(options.stat());
    assert_int_equal(options.paths.size(), 2);
    assert_string_equal(options.paths[1].c_str(), "b");
}

void the_last_setting_of_a_hint_wins(void **) {
    Options options = parsed({"--no-stat", "--hint", "pftw_stat=yes"});
    assert_true(options.stat());
    options = parsed({"--hint", "pftw_threads=8", "--threads", "2"});
    assert_string_equal(options.hint("pftw_threads").c_str(), "2");
    options = parsed({"--hint", "pftw_something_new=1"});
    assert_true(options.has_hint("pftw_something_new"));
    assert_false(options.has_hint("pftw_threads"));
}

void selection_values_use_find_syntax(void **) {
    const Options options = parsed({"--name", "*.c", "--type", "d", "--size", "-3k", "--mtime", "+2"});
    const Selection &s = options.selection;
    assert_string_equal(s.name_glob->c_str(), "*.c");
    assert_int_equal(*s.type, PFTW_TYPE_DIR);
    assert_true(s.size->how == Comparison::less);
    assert_int_equal(s.size->count, 3);
    assert_int_equal(s.size->unit_bytes, 1024);
    assert_true(s.mtime->how == Comparison::greater);
    assert_int_equal(s.mtime->days, 2);
}

void size_units(void **) {
    struct { const char *text; uint64_t count, unit; } cases[] = {
        {"100", 100, 1},  // no suffix: bytes (find would say 512-byte blocks)
        {"100c", 100, 1}, {"7w", 7, 2}, {"7b", 7, 512}, {"+1k", 1, 1024},
        {"2M", 2, 1 << 20}, {"1G", 1, 1 << 30}, {"0", 0, 1},
    };
    for (const auto &c : cases) {
        Options options;
        assert_string_equal(parse({"--size", c.text}, options).c_str(), "");
        assert_int_equal(options.selection.size->count, c.count);
        assert_int_equal(options.selection.size->unit_bytes, c.unit);
    }
    assert_true(parsed({"--size", "5"}).selection.size->how == Comparison::equal);
    assert_true(parsed({"--size", "+5"}).selection.size->how == Comparison::greater);
}

void output_modes(void **) {
    assert_true(parsed({"--print"}).output == OutputMode::print);
    assert_true(parsed({"--print0"}).output == OutputMode::print0);
    assert_true(parsed({"--json", "--du"}).output == OutputMode::json);
    assert_true(parsed({"--du"}).du);
    assert_true(parsed({"--progress"}).progress);
    assert_string_equal(parsed({"--stats-matrix", "m.csv"}).stats_matrix_file.c_str(), "m.csv");
    assert_true(parsed({"--help"}).help);
}

void bad_values_are_usage_errors(void **) {
    assert_usage_error({"--algorithm", "bfs"}, "--algorithm");
    assert_usage_error({"--threads", "0"}, "--threads");
    assert_usage_error({"--threads", "-2"}, "--threads");
    assert_usage_error({"--threads", "2x"}, "--threads");
    assert_usage_error({"--split", "half"}, "--split");
    assert_usage_error({"--max-depth", "-1"}, "--max-depth");
    assert_usage_error({"--max-depth", "99999999999"}, "--max-depth");
    assert_usage_error({"--type", "x"}, "--type");
    assert_usage_error({"--type", "fd"}, "--type");
    assert_usage_error({"--size", "10x"}, "--size");
    assert_usage_error({"--size", "+"}, "--size");
    assert_usage_error({"--size", "k"}, "--size");
    assert_usage_error({"--size", "1.5k"}, "--size");
    assert_usage_error({"--size", "99999999999999999999999"}, "--size");
    assert_usage_error({"--mtime", "1.5"}, "--mtime");
    assert_usage_error({"--mtime", "d"}, "--mtime");
    assert_usage_error({"--hint", "pftw_threads"}, "KEY=VALUE");
    assert_usage_error({"--hint", "=4"}, "KEY=VALUE");
    assert_usage_error({"--hint", "piox_x=1"}, "pftw_");
    assert_usage_error({"--hint", "pftw_stat=maybe"}, "pftw_stat");
    assert_usage_error({""}, "empty path");
}

void unknown_and_incomplete_options_are_usage_errors(void **) {
    assert_usage_error({"--frobnicate"}, "'--frobnicate'");
    assert_usage_error({"-x"}, "'-x'");
    assert_usage_error({"--name"}, "requires an argument");
    assert_usage_error({"dir", "--size"}, "requires an argument");
    assert_usage_error({"--print", "--help", "--nope"}, "'--nope'");
}

void impossible_combinations_are_usage_errors(void **) {
    assert_usage_error({"--print", "--print0"}, "only one of");
    assert_usage_error({"--json", "--print"}, "only one of");
    assert_usage_error({"--du", "--print"}, "--du");
    assert_usage_error({"--no-stat", "--size", "1"}, "--no-stat");
    assert_usage_error({"--no-stat", "--mtime", "1"}, "--no-stat");
    assert_usage_error({"--no-stat", "--newer", "f"}, "--no-stat");
    assert_usage_error({"--no-stat", "--user", "root"}, "--no-stat");
    assert_usage_error({"--no-stat", "--du"}, "--du");
    assert_usage_error({"--size", "1", "--hint", "pftw_stat=no"}, "--no-stat");
    // The same output mode twice is fine, and --name needs no stat.
    assert_true(parsed({"--print", "--print"}).output == OutputMode::print);
    assert_false(parsed({"--no-stat", "--name", "x", "--type", "f"}).stat());
}

void paths_may_follow_options_and_double_dash(void **) {
    const Options options = parsed({"a", "--print", "--", "--not-an-option", "-"});
    assert_true(options.output == OutputMode::print);
    assert_int_equal(options.paths.size(), 3);
    assert_string_equal(options.paths[0].c_str(), "a");
    assert_string_equal(options.paths[1].c_str(), "--not-an-option");
    assert_string_equal(options.paths[2].c_str(), "-");
}

void parsing_twice_starts_afresh(void **) {
    Options options;
    assert_string_equal(parse({"--print", "--name", "x", "one"}, options).c_str(), "");
    assert_string_equal(parse({"two"}, options).c_str(), "");
    assert_true(options.output == OutputMode::summary);
    assert_false(options.selection.name_glob.has_value());
    assert_int_equal(options.paths.size(), 1);
    assert_string_equal(options.paths[0].c_str(), "two");
}

void references_resolve_users_and_files(void **) {
    Options options = parsed({"--user", "root"});
    assert_string_equal(resolve_references(options).c_str(), "");
    assert_int_equal(*options.selection.user, 0);

    options = parsed({"--user", "123456"});  // numeric, no such name needed
    assert_string_equal(resolve_references(options).c_str(), "");
    assert_int_equal(*options.selection.user, 123456);

    options = parsed({"--user", "no-such-user-pftw"});
    assert_true(resolve_references(options).find("not the name of a known user") != std::string::npos);

    char file[] = "/tmp/pftw-newer-XXXXXX";
    const int fd = mkstemp(file);
    assert_true(fd >= 0);
    const timespec times[2] = {{1000, 0}, {1234567, 890}};
    assert_int_equal(futimens(fd, times), 0);
    close(fd);
    options = parsed({"--newer", file});
    assert_string_equal(resolve_references(options).c_str(), "");
    assert_int_equal(options.selection.newer_than->tv_sec, 1234567);
    assert_int_equal(options.selection.newer_than->tv_nsec, 890);
    unlink(file);
    options = parsed({"--newer", file});
    assert_true(resolve_references(options).find("No such file") != std::string::npos);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_walk_dot_with_stat),
        cmocka_unit_test(walk_options_become_hints),
        cmocka_unit_test(the_last_setting_of_a_hint_wins),
        cmocka_unit_test(selection_values_use_find_syntax),
        cmocka_unit_test(size_units),
        cmocka_unit_test(output_modes),
        cmocka_unit_test(bad_values_are_usage_errors),
        cmocka_unit_test(unknown_and_incomplete_options_are_usage_errors),
        cmocka_unit_test(impossible_combinations_are_usage_errors),
        cmocka_unit_test(paths_may_follow_options_and_double_dash),
        cmocka_unit_test(parsing_twice_starts_afresh),
        cmocka_unit_test(references_resolve_users_and_files),
    };
    return cmocka_run_group_tests_name("pftw_options", tests, nullptr, nullptr) == 0 ? 0 : 1;
}
