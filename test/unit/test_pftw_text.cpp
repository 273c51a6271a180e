/*
 * test_pftw_text - unit tests (CMocka) of the strings the pftw tool produces: JSON
 * string escaping of arbitrary bytes, the JSON writer's commas, find's spelling of
 * paths under a root, the --du records and their merge across split chunks, and
 * stderr lines that stay one line within PIPE_BUF.
 */
#include "du.h"
#include "json.h"
#include "messages.h"
#include "paths.h"

#include <cerrno>
#include <climits>
#include <string>

extern "C" {
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
}

using namespace pftw_tool;
using namespace std::string_literals;

namespace {

void json_strings_escape_what_they_must(void **) {
    assert_string_equal(json_string("plain").c_str(), "\"plain\"");
    assert_string_equal(json_string("a\"b\\c").c_str(), "\"a\\\"b\\\\c\"");
    assert_string_equal(json_string("l1\nl2\t\x01").c_str(), "\"l1\\nl2\\t\\u0001\"");
    assert_string_equal(json_string("\x7f").c_str(), "\"\x7f\"");
    // Valid UTF-8 passes through: é, €, U+1F600.
    assert_string_equal(json_string("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80").c_str(),
                        "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
    // A NUL inside the bytes is escaped, not a terminator.
    assert_string_equal(json_string("a\0b"s).c_str(), "\"a\\u0000b\"");
}

void json_strings_surrogate_escape_invalid_utf8(void **) {
    assert_string_equal(json_string("\xff").c_str(), "\"\\udcff\"");
    assert_string_equal(json_string("a\x80z").c_str(), "\"a\\udc80z\"");
    // A truncated sequence: each byte on its own.
    assert_string_equal(json_string("\xe2\x82").c_str(), "\"\\udce2\\udc82\"");
    // Overlong '/', an encoded surrogate and a code point past U+10FFFF are not UTF-8.
    assert_string_equal(json_string("\xc0\xaf").c_str(), "\"\\udcc0\\udcaf\"");
    assert_string_equal(json_string("\xed\xa0\x80").c_str(), "\"\\udced\\udca0\\udc80\"");
    assert_string_equal(json_string("\xf4\x90\x80\x80").c_str(),
                        "\"\\udcf4\\udc90\\udc80\\udc80\"");
}

void json_writer_separates_members(void **) {
    JsonWriter json;
    json.begin_object();
    json.key("a");
    json.number(1);
    json.key("list");
    json.begin_array();
    json.number(2);
    json.begin_object();
    json.end_object();
    json.string("x");
    json.end_array();
    json.key("ok");
    json.boolean(true);
    json.key("r");
    json.real(0.5);
    json.key("bad");
    json.real(1.0 / 0.0);
    json.end_object();
    assert_string_equal(json.text().c_str(),
                        "{\"a\":1,\"list\":[2,{},\"x\"],\"ok\":true,\"r\":0.5,\"bad\":null}");
}

PFTW_Entry entry_at(const std::string &path, int depth) {
    PFTW_Entry entry{};
    entry.path = path.c_str();
    entry.path_length = path.size();
    entry.depth = depth;
    entry.name_offset = depth ? path.rfind('/') + 1 : 0;
    return entry;
}

std::string find_path(const std::string &root, const std::string &library_path, int depth) {
    std::string out;
    append_find_path(out, root, entry_at(library_path, depth));
    return out;
}

void paths_are_spelled_as_find_spells_them(void **) {
    assert_string_equal(find_path("x", "x", 0).c_str(), "x");
    assert_string_equal(find_path("x", "x/y/z", 2).c_str(), "x/y/z");
    // find x/ prints x/y and find x// prints x//y, whether or not the library
    // doubled the slash after such a root.
    assert_string_equal(find_path("x/", "x/", 0).c_str(), "x/");
    assert_string_equal(find_path("x/", "x//y", 1).c_str(), "x/y");
    assert_string_equal(find_path("x/", "x/y", 1).c_str(), "x/y");
    assert_string_equal(find_path("x//", "x///y", 1).c_str(), "x//y");
    assert_string_equal(find_path("/", "//etc/passwd", 2).c_str(), "/etc/passwd");
    assert_string_equal(find_path("/", "/etc", 1).c_str(), "/etc");
}

void top_level_child_is_the_first_component(void **) {
    const std::string deep = "r/a b/c/d", child = "r/a b", root = "r";
    assert_string_equal(std::string(top_level_child("r", entry_at(deep, 3))).c_str(), "a b");
    assert_string_equal(std::string(top_level_child("r", entry_at(child, 1))).c_str(), "a b");
    assert_string_equal(std::string(top_level_child("r", entry_at(root, 0))).c_str(), "");
    const std::string under_slash = "r//.hidden/x";
    assert_string_equal(std::string(top_level_child("r/", entry_at(under_slash, 2))).c_str(), ".hidden");
    assert_string_equal(child_path("r", "a").c_str(), "r/a");
    assert_string_equal(child_path("r/", "a").c_str(), "r/a");
    assert_string_equal(child_path("r", "").c_str(), "r");
}

void du_records_survive_any_split(void **) {
    DuTally one, two;
    one.add("a", 10);
    one.add("a", 5);
    one.add("b\nc", 1);
    one.add("a", 100);  // back to an earlier child: still the same total
    two.add("a", 1);
    two.add(std::string(300, 'z'), uint64_t(1) << 40);
    std::string stream_one, stream_two;
    one.serialize(stream_one);
    two.serialize(stream_two);
    // Feed each stream in chunks of every size from 1 byte up: the totals never change.
    for (size_t chunk = 1; chunk <= stream_one.size() + 1; ++chunk) {
        DuMerge merge;
        for (const std::string *stream : {&stream_one, &stream_two}) {
            for (size_t at = 0; at < stream->size(); at += chunk)
                merge.feed(stream->data() + at, std::min(chunk, stream->size() - at));
            assert_true(merge.end_of_stream());
        }
        const auto &totals = merge.totals();
        assert_int_equal(totals.size(), 3);
        assert_int_equal(totals.at("a"), 116);
        assert_int_equal(totals.at("b\nc"), 1);
        assert_int_equal(totals.at(std::string(300, 'z')), uint64_t(1) << 40);
        assert_string_equal(totals.begin()->first.c_str(), "a");  // names in byte order
    }
    DuMerge cut;
    cut.feed(stream_one.data(), stream_one.size() - 1);
    assert_false(cut.end_of_stream());
}

void error_lines_are_one_line_within_pipe_buf(void **) {
    assert_string_equal(entry_error_line("d/x", EACCES).c_str(), "pftw: 'd/x': Permission denied\n");
    assert_string_equal(entry_error_line("a\nb\\c\x01", ENOENT).c_str(),
                        "pftw: 'a\\nb\\\\c\\001': No such file or directory\n");
    const std::string huge = "start/" + std::string(10000, 'p') + "/end";
    const std::string line = entry_error_line(huge, EACCES);
    assert_true(line.size() <= PIPE_BUF);
    assert_int_equal(line.find('\n'), line.size() - 1);
    assert_true(line.find("pftw: 'start/") == 0);
    assert_true(line.find("/end': Permission denied\n") != std::string::npos);
    assert_true(line.find("...") != std::string::npos);
}

void progress_line_reports_rate(void **) {
    assert_string_equal(progress_line(1000, 4.0).c_str(), "pftw: 1000 entries, 250/s\n");
    assert_string_equal(progress_line(5, 0.0).c_str(), "pftw: 5 entries, 0/s\n");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(json_strings_escape_what_they_must),
        cmocka_unit_test(json_strings_surrogate_escape_invalid_utf8),
        cmocka_unit_test(json_writer_separates_members),
        cmocka_unit_test(paths_are_spelled_as_find_spells_them),
        cmocka_unit_test(top_level_child_is_the_first_component),
        cmocka_unit_test(du_records_survive_any_split),
        cmocka_unit_test(error_lines_are_one_line_within_pipe_buf),
        cmocka_unit_test(progress_line_reports_rate),
    };
    return cmocka_run_group_tests_name("pftw_text", tests, nullptr, nullptr) == 0 ? 0 : 1;
}
