/*
 * test_dli_local - unit tests (CMocka) of the posix provider's collective half
 * (locality/providers/posix.h): combining what each host holds into a chunk table, and
 * the wire form of a holding, which must refuse garbage rather than trust it.
 */
#include <cstring>
#include <string>
#include <vector>

#include "error.h"
#include "providers/posix.h"

extern "C" {
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
}

using namespace dli;

namespace {

Config chunks_of(int64_t size) {
    Config config;
    config.chunk_size = size;
    return config;
}

PosixHolding holding(bool node_local, int64_t size, std::vector<std::pair<int64_t, int64_t>> ranges) {
    PosixHolding h;
    h.exists = true;
    h.node_local = node_local;
    h.size = size;
    h.ranges = std::move(ranges);
    return h;
}

std::vector<std::vector<std::string>> hosts_of(const ChunkTable &table) {
    std::vector<std::vector<std::string>> hosts;
    for (const Chunk &chunk : table.chunks) hosts.push_back(chunk.hosts);
    return hosts;
}

void a_chunk_is_local_where_a_node_local_copy_holds_all_of_it(void **) {
    // A: whole copy; B: sparse, data in [100, 300) only; C: shared file system; D: none.
    std::vector<PosixHolding> holdings = {holding(true, 450, {{0, 450}}), holding(true, 450, {{100, 300}}),
                                          holding(false, 450, {}), PosixHolding{}};
    ChunkTable table = combine_posix_holdings("f", chunks_of(100), {"A", "B", "C", "D"}, holdings);
    assert_int_equal(table.file_size, 450);
    assert_int_equal(table.chunks.size(), 5);
    assert_int_equal(table.chunks[4].length, 50);
    std::vector<std::vector<std::string>> expected = {{"A"}, {"A", "B"}, {"A", "B"}, {"A"}, {"A"}};
    assert_true(hosts_of(table) == expected);
}

void the_largest_copy_sets_the_size(void **) {
    std::vector<PosixHolding> holdings = {holding(true, 150, {{0, 150}}), holding(true, 250, {{0, 250}})};
    ChunkTable table = combine_posix_holdings("f", chunks_of(100), {"A", "B"}, holdings);
    std::vector<std::vector<std::string>> expected = {{"A", "B"}, {"B"}, {"B"}};
    assert_int_equal(table.file_size, 250);
    assert_true(hosts_of(table) == expected);
}

void only_shared_copies_say_every_host(void **) {
    ChunkTable table = combine_posix_holdings("f", chunks_of(100), {"A", "B"},
                                              {holding(false, 120, {}), holding(false, 120, {})});
    std::vector<std::vector<std::string>> expected = {{"*"}, {"*"}};
    assert_true(hosts_of(table) == expected);
}

void nobody_seeing_the_file_is_noent(void **) {
    try {
        combine_posix_holdings("gone", chunks_of(100), {"A"}, {PosixHolding{}});
        fail();
    } catch (const Error &e) {
        assert_int_equal(e.code(), DLI_ERR_NOENT);
    }
    ChunkTable empty = combine_posix_holdings("e", chunks_of(100), {"A"}, {holding(true, 0, {})});
    assert_int_equal(empty.chunks.size(), 0);
}

void a_holding_crosses_the_wire_intact(void **) {
    PosixHolding sent = holding(true, 1000, {{0, 10}, {500, 1000}});
    std::vector<char> wire = encode_holding(sent);
    PosixHolding got = decode_holding(wire.data(), wire.size());
    assert_true(got.exists && got.node_local);
    assert_int_equal(got.size, 1000);
    assert_true(got.ranges == sent.ranges);
}

void garbage_on_the_wire_is_refused(void **) {
    std::vector<char> wire = encode_holding(holding(true, 1000, {{0, 10}, {500, 1000}}));
    auto refused = [](const std::vector<char> &bytes) {
        try {
            decode_holding(bytes.data(), bytes.size());
            return false;
        } catch (const Error &e) {
            return e.code() == DLI_ERR_PROTOCOL;
        }
    };
    for (size_t cut = 0; cut < wire.size(); ++cut)
        assert_true(refused(std::vector<char>(wire.begin(), wire.begin() + static_cast<long>(cut))));
    auto with_word = [&](size_t index, int64_t value) {
        std::vector<char> bytes = wire;
        std::memcpy(bytes.data() + index * 8, &value, 8);
        return bytes;
    };
    assert_true(refused(with_word(0, 2)));          // exists is not 0 or 1
    assert_true(refused(with_word(2, -1)));         // negative size
    assert_true(refused(with_word(3, 5)));          // range count lies
    assert_true(refused(with_word(3, INT64_MAX)));
    assert_true(refused(with_word(6, 5)));          // ranges out of order
    assert_true(refused(with_word(7, 2000)));       // a range past the size
    assert_true(refused(with_word(5, 0)));          // an empty range
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_chunk_is_local_where_a_node_local_copy_holds_all_of_it),
        cmocka_unit_test(the_largest_copy_sets_the_size),
        cmocka_unit_test(only_shared_copies_say_every_host),
        cmocka_unit_test(nobody_seeing_the_file_is_noent),
        cmocka_unit_test(a_holding_crosses_the_wire_intact),
        cmocka_unit_test(garbage_on_the_wire_is_refused),
    };
    return cmocka_run_group_tests_name("dli_local", tests, nullptr, nullptr) == 0 ? 0 : 1;
}
