/*
 * test_pftw_filter - unit tests (CMocka) of the pftw tool's selection (ftw/tool/filter.h):
 * find's rounding for --size and --mtime, the name --name matches (the root's too),
 * --newer's strictness, and that every test must hold. No MPI, no walk: entries are
 * built by hand.
 */
#include "filter.h"

#include <cstring>
#include <string>
#include <sys/stat.h>

extern "C" {
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
}

using namespace pftw_tool;

namespace {

constexpr int64_t day = 86400;
constexpr uint64_t KiB = 1024, MiB = 1024 * 1024;

// An entry as libpftw passes it; path must outlive it.
PFTW_Entry entry_at(const std::string &path, size_t name_offset, int depth,
                    PFTW_Type type = PFTW_TYPE_FILE, const struct stat *st = nullptr) {
    PFTW_Entry entry{};
    entry.path = path.c_str();
    entry.path_length = path.size();
    entry.name_offset = name_offset;
    entry.depth = depth;
    entry.type = type;
    entry.st = st;
    return entry;
}

std::string name_of_root(const std::string &root) {
    return std::string(name_for_matching(entry_at(root, 0, 0, PFTW_TYPE_DIR)));
}

void root_name_is_its_last_component(void **) {
    assert_string_equal(name_of_root("x").c_str(), "x");
    assert_string_equal(name_of_root("a/b").c_str(), "b");
    assert_string_equal(name_of_root("a/b/").c_str(), "b");
    assert_string_equal(name_of_root("a/b//").c_str(), "b");
    assert_string_equal(name_of_root("/").c_str(), "/");
    assert_string_equal(name_of_root("///").c_str(), "/");
    assert_string_equal(name_of_root("./").c_str(), ".");
    assert_string_equal(name_of_root("/usr").c_str(), "usr");
}

void entry_name_is_from_name_offset(void **) {
    const std::string path = "top/dir/file name";
    assert_string_equal(std::string(name_for_matching(entry_at(path, 8, 2))).c_str(), "file name");
}

SizeTest size_test(Comparison how, uint64_t count, uint64_t unit) {
    SizeTest test;
    test.how = how;
    test.count = count;
    test.unit_bytes = unit;
    return test;
}

void size_rounds_up_to_whole_units(void **) {
    // find -size -1M: less than one unit after rounding up, so only empty files.
    const SizeTest under_1M = size_test(Comparison::less, 1, MiB);
    assert_true(size_matches(under_1M, 0));
    assert_false(size_matches(under_1M, 1));
    assert_false(size_matches(under_1M, MiB));
    // find -size 1M: 1 byte .. 1 MiB all round up to one unit.
    const SizeTest one_M = size_test(Comparison::equal, 1, MiB);
    assert_false(size_matches(one_M, 0));
    assert_true(size_matches(one_M, 1));
    assert_true(size_matches(one_M, MiB));
    assert_false(size_matches(one_M, MiB + 1));
    // find -size +1M: two units or more.
    const SizeTest over_1M = size_test(Comparison::greater, 1, MiB);
    assert_false(size_matches(over_1M, MiB));
    assert_true(size_matches(over_1M, MiB + 1));
    // 1025 bytes are two KiB units.
    assert_true(size_matches(size_test(Comparison::equal, 2, KiB), 1025));
    assert_false(size_matches(size_test(Comparison::equal, 1, KiB), 1025));
}

void size_in_bytes_is_exact(void **) {
    assert_true(size_matches(size_test(Comparison::equal, 100, 1), 100));
    assert_false(size_matches(size_test(Comparison::equal, 100, 1), 101));
    assert_true(size_matches(size_test(Comparison::greater, 100, 1), 101));
    assert_false(size_matches(size_test(Comparison::greater, 100, 1), 100));
    assert_true(size_matches(size_test(Comparison::less, 100, 1), 99));
    assert_true(size_matches(size_test(Comparison::equal, 0, 1), 0));
    // 512-byte blocks (find's default unit, "b" here): 513 bytes are 2 blocks.
    assert_true(size_matches(size_test(Comparison::equal, 2, 512), 513));
}

timespec at(int64_t seconds, long nanoseconds = 0) { return timespec{time_t(seconds), nanoseconds}; }

MtimeTest mtime_test(Comparison how, int64_t days) {
    MtimeTest test;
    test.how = how;
    test.days = days;
    return test;
}

void age_is_whole_days_rounded_down(void **) {
    const timespec start = at(1000 * day, 500);
    assert_int_equal(age_in_days(at(1000 * day), start), 0);
    assert_int_equal(age_in_days(at(1000 * day - day + 1), start), 0);  // 23:59:59 old
    assert_int_equal(age_in_days(at(1000 * day - day), start), 1);      // exactly 24 h
    assert_int_equal(age_in_days(at(1000 * day - 2 * day - 1), start), 2);
    // A file from the future, even by a nanosecond, is -1 days old.
    assert_int_equal(age_in_days(at(1000 * day, 501), start), -1);
    assert_int_equal(age_in_days(at(1000 * day + 3600), start), -1);
    assert_int_equal(age_in_days(at(1000 * day + day + 1), start), -2);
    // Nanoseconds decide at the day boundary: 1 day minus 1 ns old is 0 days.
    assert_int_equal(age_in_days(at(999 * day, 501), start), 0);
    assert_int_equal(age_in_days(at(999 * day, 500), start), 1);
}

void mtime_compares_like_find(void **) {
    const timespec start = at(1000 * day);
    const timespec hours_36 = at(1000 * day - 36 * 3600);  // 1 whole day
    assert_true(mtime_matches(mtime_test(Comparison::equal, 1), hours_36, start));
    // -mtime +1: 2 days or more
    assert_false(mtime_matches(mtime_test(Comparison::greater, 1), hours_36, start));
    assert_true(mtime_matches(mtime_test(Comparison::greater, 0), hours_36, start));
    // -mtime -1: within the last 24 h
    assert_false(mtime_matches(mtime_test(Comparison::less, 1), hours_36, start));
    assert_true(mtime_matches(mtime_test(Comparison::less, 2), hours_36, start));
    // -mtime -0 matches only files from the future, -mtime 0 not those.
    assert_true(mtime_matches(mtime_test(Comparison::less, 0), at(1000 * day + 10), start));
    assert_false(mtime_matches(mtime_test(Comparison::less, 0), at(1000 * day - 10), start));
    assert_false(mtime_matches(mtime_test(Comparison::equal, 0), at(1000 * day + 10), start));
}

void newer_is_strict(void **) {
    assert_true(is_later(at(10, 1), at(10, 0)));
    assert_false(is_later(at(10, 0), at(10, 0)));
    assert_false(is_later(at(9, 999999999), at(10, 0)));
    assert_true(is_later(at(11, 0), at(10, 999999999)));
}

struct stat stat_of(off_t size, int64_t mtime, uid_t uid) {
    struct stat st;
    std::memset(&st, 0, sizeof st);
    st.st_size = size;
    st.st_mtim = at(mtime);
    st.st_uid = uid;
    st.st_mode = S_IFREG | 0644;
    return st;
}

void every_test_must_hold(void **) {
    const std::string path = "root/a.log";
    const struct stat st = stat_of(2000, 1000 * day - 10, 42);
    const PFTW_Entry file = entry_at(path, 5, 1, PFTW_TYPE_FILE, &st);
    const timespec start = at(1000 * day);

    Selection all;
    assert_true(all.selects_everything());
    assert_true(entry_selected(all, file, start));

    Selection selection;
    selection.name_glob = "*.log";
    selection.type = PFTW_TYPE_FILE;
    selection.size = size_test(Comparison::equal, 2, KiB);
    selection.mtime = mtime_test(Comparison::equal, 0);
    selection.newer_than = at(1000 * day - 20);
    selection.user = 42;
    assert_true(entry_selected(selection, file, start));

    // Each test alone can reject the entry.
    Selection wrong = selection;
    wrong.name_glob = "*.txt";
    assert_false(entry_selected(wrong, file, start));
    wrong = selection;
    wrong.type = PFTW_TYPE_DIR;
    assert_false(entry_selected(wrong, file, start));
    wrong = selection;
    wrong.size = size_test(Comparison::greater, 2, KiB);
    assert_false(entry_selected(wrong, file, start));
    wrong = selection;
    wrong.mtime = mtime_test(Comparison::equal, 1);
    assert_false(entry_selected(wrong, file, start));
    wrong = selection;
    wrong.newer_than = at(1000 * day - 10);  // the same second: not strictly newer
    assert_false(entry_selected(wrong, file, start));
    wrong = selection;
    wrong.user = 43;
    assert_false(entry_selected(wrong, file, start));
}

void stat_tests_fail_without_a_stat(void **) {
    const std::string path = "root/x";
    const PFTW_Entry no_stat = entry_at(path, 5, 1);
    Selection selection;
    selection.size = size_test(Comparison::greater, 0, 1);
    assert_true(selection.needs_stat());
    assert_false(entry_selected(selection, no_stat, at(0)));
    Selection by_name;
    by_name.name_glob = "x";
    assert_false(by_name.needs_stat());
    assert_true(entry_selected(by_name, no_stat, at(0)));
}

void glob_matches_dot_files_and_odd_bytes(void **) {
    // find -name '*' matches dot-files: POSIX forbids FNM_PERIOD there.
    const std::string hidden = "root/.hidden", odd = "root/a\nb\xff";
    Selection star;
    star.name_glob = "*";
    assert_true(entry_selected(star, entry_at(hidden, 5, 1), at(0)));
    Selection question;
    question.name_glob = "a?b?";
    assert_true(entry_selected(question, entry_at(odd, 5, 1), at(0)));
    // The root matches by its last component, trailing slash or not.
    const std::string root = "some/where/";
    Selection where;
    where.name_glob = "where";
    assert_true(entry_selected(where, entry_at(root, 0, 0, PFTW_TYPE_DIR), at(0)));
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(root_name_is_its_last_component),
        cmocka_unit_test(entry_name_is_from_name_offset),
        cmocka_unit_test(size_rounds_up_to_whole_units),
        cmocka_unit_test(size_in_bytes_is_exact),
        cmocka_unit_test(age_is_whole_days_rounded_down),
        cmocka_unit_test(mtime_compares_like_find),
        cmocka_unit_test(newer_is_strict),
        cmocka_unit_test(every_test_must_hold),
        cmocka_unit_test(stat_tests_fail_without_a_stat),
        cmocka_unit_test(glob_matches_dot_files_and_odd_bytes),
    };
    return cmocka_run_group_tests_name("pftw_filter", tests, nullptr, nullptr) == 0 ? 0 : 1;
}
