/*
 * test_dli_webhdfs - unit tests (CMocka) of the hdfs provider's pieces without a server:
 * taking webhdfs:// and hdfs:// names apart (and refusing bad ones), percent-encoding,
 * the request URLs (the delegation token never shown), and reading WebHDFS JSON bodies
 * into chunk tables, with every malformed shape a DLI_ERR_PROTOCOL naming the member.
 * The same paths against recorded answers over HTTP: test/integration/test_dli_hdfs.py.
 */
#include <string>
#include <vector>

#include "error.h"
#include "providers/webhdfs_json.h"
#include "providers/webhdfs_name.h"

extern "C" {
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
}

#include "dli_failure.h"

using namespace dli;
using namespace dli_test;

namespace {

void refuse_name(const std::string &name, const char *fragment) {
    assert_fails(failure_of([&] { parse_webhdfs_name(name, 9870); }), DLI_ERR_ARG, fragment);
}

const char *const source = "webhdfs://nn:9870/f: GET http://nn:9870/webhdfs/v1/f?op=X";

void refuse_blocks(const std::string &body, const char *fragment) {
    assert_fails(failure_of([&] { parse_block_locations(body, source); }), DLI_ERR_PROTOCOL, fragment);
}

std::string block(const std::string &offset, const std::string &length, const std::string &hosts) {
    return R"({"offset":)" + offset + R"(,"length":)" + length + R"(,"hosts":)" + hosts +
           R"(,"names":["10.0.0.1:9866"],"corrupt":false,"storageTypes":["DISK"]})";
}

std::string block_list(const std::vector<std::string> &blocks) {
    std::string body = R"({"BlockLocations":{"BlockLocation":[)";
    for (size_t i = 0; i < blocks.size(); ++i) body += (i ? "," : "") + blocks[i];
    return body + "]}}";
}

void names_are_taken_apart(void **) {
    WebhdfsName a = parse_webhdfs_name("webhdfs://nn1.example:50070/data/x.bin", 9870);
    assert_string_equal(a.scheme.c_str(), "webhdfs");
    assert_string_equal(a.host.c_str(), "nn1.example");
    assert_int_equal(a.http_port, 50070);
    assert_string_equal(a.path.c_str(), "/data/x.bin");

    WebhdfsName b = parse_webhdfs_name("webhdfs://nn1/data", 9871);  // no port: the setting's
    assert_int_equal(b.http_port, 9871);

    // An hdfs:// port is the RPC port: kept in the authority, never asked over HTTP.
    WebhdfsName c = parse_webhdfs_name("hdfs://nn1:8020/a b/ü", 9870);
    assert_string_equal(c.authority.c_str(), "nn1:8020");
    assert_int_equal(c.http_port, 9870);
    assert_string_equal(c.path.c_str(), "/a b/ü");

    WebhdfsName d = parse_webhdfs_name("webhdfs://[::1]:9000", 9870);
    assert_string_equal(d.host.c_str(), "[::1]");
    assert_int_equal(d.http_port, 9000);
    assert_string_equal(d.path.c_str(), "/");
}

void bad_names_are_refused(void **) {
    refuse_name("webhdfs:///data/x", "no NameNode host");
    refuse_name("hdfs://:8020/data/x", "is not a host name");
    refuse_name("webhdfs://nn:0/x", "is not a port");
    refuse_name("webhdfs://nn:65536/x", "is not a port");
    refuse_name("webhdfs://nn:99999999999/x", "is not a port");
    refuse_name("webhdfs://nn:http/x", "is not a port");
    refuse_name("webhdfs://nn:/x", "is not a port");
    refuse_name("hdfs://nn:-1/x", "is not a port");
    refuse_name("webhdfs://alice@nn/x", "user information");
    refuse_name("webhdfs://n n/x", "is not a host name");
    refuse_name("webhdfs://nn%41/x", "is not a host name");
    refuse_name("webhdfs://[::1/x", "is not a host name");
    refuse_name("webhdfs://nn/a\tb", "control byte");
    refuse_name("webhdfs://nn/a\nb", "control byte");
    refuse_name(std::string("webhdfs://nn/a\x7f"), "control byte");
    refuse_name("webhdfs://nn/a/../etc", "\"..\" segment");
    refuse_name("webhdfs://nn/a/./b", "\".\" segment");
    refuse_name("webhdfs://nn/..", "\"..\" segment");
    refuse_name("ftp://nn/x", "not a webhdfs:// or hdfs:// name");
}

void paths_and_values_are_percent_encoded(void **) {
    assert_string_equal(percent_encode_path("/a b/100%/q?x#y/ü+~-._").c_str(),
                        "/a%20b/100%25/q%3Fx%23y/%C3%BC%2B~-._");
    assert_string_equal(percent_encode_value("al/ice=&+").c_str(), "al%2Fice%3D%26%2B");
}

void urls_carry_the_parameters_and_hide_the_token(void **) {
    WebhdfsName name = parse_webhdfs_name("webhdfs://nn:9870/d/a b", 9870);
    WebhdfsUrl plain = webhdfs_url(name, "GETFILEBLOCKLOCATIONS", "", "");
    assert_string_equal(plain.fetch.c_str(), "http://nn:9870/webhdfs/v1/d/a%20b?op=GETFILEBLOCKLOCATIONS");
    assert_string_equal(plain.shown.c_str(), plain.fetch.c_str());
    WebhdfsUrl full = webhdfs_url(name, "LISTSTATUS", "al ice", "tok+en/=");
    assert_string_equal(full.fetch.c_str(),
                        "http://nn:9870/webhdfs/v1/d/a%20b?op=LISTSTATUS&user.name=al%20ice&delegation=tok%2Ben%2F%3D");
    assert_string_equal(full.shown.c_str(), "http://nn:9870/webhdfs/v1/d/a%20b?op=LISTSTATUS&user.name=al%20ice&delegation=***");
}

void children_keep_the_directory_name(void **) {
    assert_string_equal(webhdfs_child_name(parse_webhdfs_name("hdfs://nn:8020/data", 9870), "x").c_str(),
                        "hdfs://nn:8020/data/x");
    assert_string_equal(webhdfs_child_name(parse_webhdfs_name("webhdfs://nn/data/", 9870), "y z").c_str(),
                        "webhdfs://nn/data/y z");
    assert_string_equal(webhdfs_child_name(parse_webhdfs_name("webhdfs://nn", 9870), "top").c_str(),
                        "webhdfs://nn/top");
}

void block_locations_become_chunks(void **) {
    ChunkTable t = parse_block_locations(block_list({block("0", "100", R"(["dn1","dn2","dn3"])"),
                                                     block("100", "0", R"(["dn9"])"),  // empty: skipped
                                                     block("100", "40", R"(["dn2"])"),
                                                     block("140", "0", R"([])")}),
                                         source);
    assert_int_equal(t.file_size, 140);
    assert_int_equal(t.chunks.size(), 2);
    assert_int_equal(t.chunks[1].offset, 100);
    assert_int_equal(t.chunks[1].length, 40);
    assert_int_equal(t.chunks[0].hosts.size(), 3);
    assert_string_equal(t.chunks[0].hosts[2].c_str(), "dn3");  // replica order kept
    ChunkTable empty = parse_block_locations(R"({"BlockLocations":{"BlockLocation":[]}})", source);
    assert_int_equal(empty.chunks.size(), 0);
    assert_int_equal(empty.file_size, 0);
}

void malformed_block_locations_are_protocol_errors(void **) {
    refuse_blocks("", "an empty body");
    refuse_blocks("<html>", "not valid JSON");
    refuse_blocks(R"({"BlockLocations":{"BlockLocation":[)", "not valid JSON");
    refuse_blocks("[1]", "the body is an array, not an object");
    refuse_blocks(std::string(100000, '[') + std::string(100000, ']'), "the body is an array");
    refuse_blocks(R"({"LocatedBlocks":{}})", "BlockLocations is missing");
    refuse_blocks(R"({"BlockLocations":{"BlockLocation":{}}})", "BlockLocations.BlockLocation is an object, not an array");
    refuse_blocks(R"({"BlockLocations":{"BlockLocation":[7]}})", "BlockLocations.BlockLocation[0] is a number, not an object");
    refuse_blocks(block_list({block("\"0\"", "1", "[]")}), "BlockLocation[0].offset is a string, not a whole number");
    refuse_blocks(block_list({block("0", "-5", "[]")}), "BlockLocation[0].length is negative (-5)");
    refuse_blocks(block_list({block("0", "1.5", "[]")}), "BlockLocation[0].length is a number (1.5), not a whole number");
    refuse_blocks(block_list({block("0", "null", "[]")}), "length is a null");
    refuse_blocks(block_list({block("0", "18446744073709551615", "[]")}), "length is too large (18446744073709551615)");
    refuse_blocks(block_list({block("0", "1", "\"dn1\"")}), "BlockLocation[0].hosts is a string, not an array");
    refuse_blocks(block_list({block("0", "1", "[\"dn1\",2]")}), "BlockLocation[0].hosts[1] is a number, not a string");
    refuse_blocks(block_list({block("0", "1", "[\"\"]")}), "hosts[0] is an empty host name");
    refuse_blocks(block_list({block("0", "1", "[\"d\\u0001n\"]")}), "hosts[0] holds a control byte");
    refuse_blocks(R"({"BlockLocations":{"BlockLocation":[{"offset":0,"hosts":[]}]}})", "BlockLocation[0].length is missing");
    refuse_blocks(block_list({block("0", "10", "[]"), block("12", "10", "[]")}), "does not follow byte 10");
    refuse_blocks(block_list({block("0", "10", "[]"), block("8", "10", "[]")}), "does not follow byte 10");
    refuse_blocks(block_list({block("5", "10", "[]")}), "does not follow byte 0");
    refuse_blocks(block_list({block("9223372036854775807", "1", "[]")}), "ends past 2^63");
    refuse_blocks("{\"BlockLocations\":{\"BlockLocation\":[]},\"x\":\"\xff\"}", "not valid JSON");  // not UTF-8
}

const char *located_body(const char *file_length) {
    static std::string body;
    body = std::string(R"({"LocatedBlocks":{"fileLength":)") + file_length +
           R"(,"isUnderConstruction":false,"isLastBlockComplete":true,"locatedBlocks":[)"
           R"({"block":{"blockId":1,"numBytes":100},"startOffset":0,"isCorrupt":false,)"
           R"("locations":[{"hostName":"dn2","ipAddr":"10.0.0.2","xferPort":9866},{"hostName":"dn1"}]},)"
           R"({"block":{"blockId":2,"numBytes":30},"startOffset":100,"locations":[]}]}})";
    return body.c_str();
}

void located_blocks_become_chunks(void **) {
    ChunkTable t = parse_located_blocks(located_body("130"), source);
    assert_int_equal(t.file_size, 130);
    assert_int_equal(t.chunks.size(), 2);
    assert_string_equal(t.chunks[0].hosts[0].c_str(), "dn2");
    assert_string_equal(t.chunks[0].hosts[1].c_str(), "dn1");
    assert_int_equal(t.chunks[1].offset, 100);
    assert_int_equal(t.chunks[1].hosts.size(), 0);
    assert_fails(failure_of([] { parse_located_blocks(located_body("\"130\""), source); }), DLI_ERR_PROTOCOL,
                 "LocatedBlocks.fileLength is a string");
    assert_fails(failure_of([] { parse_located_blocks(located_body("500"), source); }), DLI_ERR_PROTOCOL,
                 "the chunks end at byte 130 but the file has 500");
    assert_fails(failure_of([] { parse_located_blocks(R"({"LocatedBlocks":{"fileLength":1,"locatedBlocks":[{"startOffset":0,"block":{"numBytes":1},"locations":[{"ipAddr":"x"}]}]}})", source); }),
                 DLI_ERR_PROTOCOL, "locatedBlocks[0].locations[0].hostName is missing");
}

void remote_exceptions_are_recognised(void **) {
    RemoteException e = parse_remote_exception(
        R"({"RemoteException":{"exception":"FileNotFoundException","javaClassName":"java.io.FileNotFoundException","message":"File does not exist: /x"}})");
    assert_true(e.found);
    assert_string_equal(e.exception.c_str(), "FileNotFoundException");
    assert_string_equal(e.java_class.c_str(), "java.io.FileNotFoundException");
    assert_string_equal(e.message.c_str(), "File does not exist: /x");
    assert_false(parse_remote_exception("<html><body>Error 500</body></html>").found);
    assert_false(parse_remote_exception("").found);
    assert_false(parse_remote_exception(R"({"RemoteException":"oops"})").found);
    assert_false(parse_remote_exception(R"({"RemoteException":{"message":"no class"}})").found);
    RemoteException odd = parse_remote_exception(R"({"RemoteException":{"exception":"X","message":7}})");
    assert_true(odd.found);
    assert_string_equal(odd.message.c_str(), "");
}

void status_and_listing_are_read(void **) {
    FileStatus s = parse_file_status(R"({"FileStatus":{"length":0,"type":"DIRECTORY","owner":"a"}})", source);
    assert_string_equal(s.type.c_str(), "DIRECTORY");
    assert_fails(failure_of([] { parse_file_status(R"({"FileStatus":{"length":"0","type":"FILE"}})", source); }),
                 DLI_ERR_PROTOCOL, "FileStatus.length is a string");
    std::vector<DirectoryEntry> entries = parse_directory_listing(
        R"({"FileStatuses":{"FileStatus":[{"pathSuffix":"b","type":"FILE"},{"pathSuffix":"a","type":"DIRECTORY"}]}})", source);
    assert_int_equal(entries.size(), 2);
    assert_string_equal(entries[0].suffix.c_str(), "b");
    assert_string_equal(entries[1].type.c_str(), "DIRECTORY");
    assert_fails(failure_of([] { parse_directory_listing(R"({"FileStatuses":{"FileStatus":[{"pathSuffix":"a/b","type":"FILE"}]}})", source); }),
                 DLI_ERR_PROTOCOL, "FileStatus[0].pathSuffix \"a/b\" is not a name within the directory");
    assert_fails(failure_of([] { parse_directory_listing(R"({"FileStatuses":{"FileStatus":[{"pathSuffix":"..","type":"FILE"}]}})", source); }),
                 DLI_ERR_PROTOCOL, "is not a name within the directory");
    assert_fails(failure_of([] { parse_directory_listing(R"({"FileStatuses":{"FileStatus":[{"type":"FILE"}]}})", source); }),
                 DLI_ERR_PROTOCOL, "FileStatuses.FileStatus[0].pathSuffix is missing");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_are_taken_apart),
        cmocka_unit_test(bad_names_are_refused),
        cmocka_unit_test(paths_and_values_are_percent_encoded),
        cmocka_unit_test(urls_carry_the_parameters_and_hide_the_token),
        cmocka_unit_test(children_keep_the_directory_name),
        cmocka_unit_test(block_locations_become_chunks),
        cmocka_unit_test(malformed_block_locations_are_protocol_errors),
        cmocka_unit_test(located_blocks_become_chunks),
        cmocka_unit_test(remote_exceptions_are_recognised),
        cmocka_unit_test(status_and_listing_are_read),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
