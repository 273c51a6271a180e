/*
 * test_dli_core - unit tests (CMocka) of libdli's core (locality/): settings from hints
 * and the environment, host matching, the chunk-table check, the wire form DLI_Load
 * broadcasts, and the one-block buffers DLI_free releases. MPI is initialised (the
 * hints are MPI_Info objects) but no communication happens.
 */
#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "buffers.h"
#include "config.h"
#include "error.h"
#include "hosts.h"
#include "session.h"

extern "C" {
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
}

using namespace dli;

namespace {

// The DLI_ERR_* code `body` throws, or DLI_SUCCESS.
template <class Body> int code_of(Body body) {
    try {
        body();
        return DLI_SUCCESS;
    } catch (const Error &e) {
        return e.code();
    }
}

ChunkTable three_chunks() {
    ChunkTable table;
    table.file = "/data/set 1";
    table.file_size = 250;
    table.chunks = {{0, 100, {"nodeA", "nodeB"}}, {100, 100, {"nodeB", "nodeC"}}, {200, 50, {"nodeC", "nodeA"}}};
    return table;
}

void settings_come_from_hints_over_the_environment(void **) {
    setenv("PIOX_DLI_CHUNK_SIZE", "1m", 1);
    setenv("HADOOP_USER_NAME", "alice", 1);
    Config env = config_from_environment();
    assert_int_equal(env.chunk_size, 1 << 20);
    assert_string_equal(env.webhdfs_user.c_str(), "alice");
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "dli_chunk_size", "65536");
    MPI_Info_set(info, "dli_webhdfs_port", "50070");
    MPI_Info_set(info, "romio_cb_read", "enable");  // not ours: ignored
    Config hinted = config_with_hints(env, info);
    assert_int_equal(hinted.chunk_size, 65536);
    assert_int_equal(hinted.webhdfs_port, 50070);
    assert_string_equal(hinted.webhdfs_user.c_str(), "alice");
    assert_string_equal(hinted.origin["dli_chunk_size"].c_str(), "hint dli_chunk_size=65536");
    MPI_Info_free(&info);
    unsetenv("PIOX_DLI_CHUNK_SIZE");
    unsetenv("HADOOP_USER_NAME");
}

void unusable_settings_are_refused(void **) {
    for (const char *bad : {"", "lots", "-1", "0", "12x", "1mm", "99999999999g", "1 "}) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "dli_chunk_size", bad);
        assert_int_equal(code_of([&] { config_with_hints(Config{}, info); }), DLI_ERR_INFO);
        MPI_Info_free(&info);
    }
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "dli_webhdfs_port", "70000");
    assert_int_equal(code_of([&] { config_with_hints(Config{}, info); }), DLI_ERR_INFO);
    MPI_Info_free(&info);
    MPI_Info_create(&info);
    MPI_Info_set(info, "dli_chunksize", "1");  // misspelt
    assert_int_equal(code_of([&] { config_with_hints(Config{}, info); }), DLI_ERR_INFO);
    MPI_Info_free(&info);
    setenv("PIOX_DLI_TIMEOUT_MS", "soon", 1);
    assert_int_equal(code_of([] { config_from_environment(); }), DLI_ERR_INFO);
    unsetenv("PIOX_DLI_TIMEOUT_MS");
}

void host_names_match_as_documented(void **) {
    assert_true(same_host("node1", "node1"));
    assert_true(same_host("NODE1", "node1"));
    assert_true(same_host("node1", "node1.cluster.example"));
    assert_true(same_host("Node1.Cluster.Example", "node1"));
    assert_false(same_host("node1.a.example", "node1.b.example"));
    assert_false(same_host("node1", "node10"));
    assert_false(same_host("node1", ""));
    assert_true(same_host("*", "anything.example"));
    assert_true(same_host("nodeZ", "*"));
}

void this_host_follows_piox_hostname(void **) {
    setenv("PIOX_HOSTNAME", "forced-name", 1);
    assert_string_equal(this_host().c_str(), "forced-name");
    unsetenv("PIOX_HOSTNAME");
    assert_false(this_host().empty());
}

void chunk_tables_must_tile_the_file(void **) {
    ChunkTable good = three_chunks();
    assert_int_equal(code_of([&] { check_chunk_table(good, DLI_ERR_PROTOCOL, "t"); }), DLI_SUCCESS);
    ChunkTable gap = good;
    gap.chunks[1].offset = 101;
    assert_int_equal(code_of([&] { check_chunk_table(gap, DLI_ERR_PROTOCOL, "t"); }), DLI_ERR_PROTOCOL);
    ChunkTable overlap = good;
    overlap.chunks[1].offset = 99;
    assert_int_equal(code_of([&] { check_chunk_table(overlap, DLI_ERR_MAP, "t"); }), DLI_ERR_MAP);
    ChunkTable short_file = good;
    short_file.file_size = 260;
    assert_int_equal(code_of([&] { check_chunk_table(short_file, DLI_ERR_PROTOCOL, "t"); }), DLI_ERR_PROTOCOL);
    ChunkTable empty_host = good;
    empty_host.chunks[2].hosts.push_back("");
    assert_int_equal(code_of([&] { check_chunk_table(empty_host, DLI_ERR_PROTOCOL, "t"); }), DLI_ERR_PROTOCOL);
    ChunkTable zero = good;
    zero.chunks[2].length = 0;
    assert_int_equal(code_of([&] { check_chunk_table(zero, DLI_ERR_PROTOCOL, "t"); }), DLI_ERR_PROTOCOL);
    ChunkTable empty_file;
    empty_file.file = "e";
    assert_int_equal(code_of([&] { check_chunk_table(empty_file, DLI_ERR_PROTOCOL, "t"); }), DLI_SUCCESS);
}

void the_wire_form_round_trips_and_refuses_garbage(void **) {
    ChunkTable table = three_chunks();
    std::vector<char> wire = encode_table(table);
    ChunkTable back = decode_table(wire.data(), wire.size());
    assert_string_equal(back.file.c_str(), table.file.c_str());
    assert_int_equal(back.file_size, 250);
    assert_int_equal(back.chunks.size(), 3);
    assert_int_equal(back.chunks[2].offset, 200);
    assert_string_equal(back.chunks[2].hosts[1].c_str(), "nodeA");
    for (size_t cut = 0; cut < wire.size(); ++cut)  // every truncation is refused
        assert_int_equal(code_of([&] { decode_table(wire.data(), cut); }), DLI_ERR_PROTOCOL);
    std::vector<char> longer = wire;
    longer.push_back('x');
    assert_int_equal(code_of([&] { decode_table(longer.data(), longer.size()); }), DLI_ERR_PROTOCOL);
    std::vector<char> huge_count = wire;  // the chunk count sits after the name and size
    int64_t lie = INT64_MAX;
    std::memcpy(huge_count.data() + 8 + table.file.size() + 8, &lie, sizeof lie);
    assert_int_equal(code_of([&] { decode_table(huge_count.data(), huge_count.size()); }), DLI_ERR_PROTOCOL);
}

void a_chunk_list_is_one_block_with_shared_host_names(void **) {
    ChunkTable table = three_chunks();
    DLI_Chunk_list *list = pack_chunk_list(table, chunks_local_to(table, "nodeA"));
    assert_string_equal(list->file, "/data/set 1");
    assert_int_equal(list->total_chunks, 3);
    assert_int_equal(list->count, 2);
    assert_int_equal(list->chunks[0].index, 0);
    assert_int_equal(list->chunks[1].index, 2);
    assert_int_equal(list->chunks[1].offset, 200);
    assert_int_equal(list->chunks[1].length, 50);
    assert_int_equal(list->chunks[1].nhosts, 2);
    assert_string_equal(list->chunks[1].hosts[0], "nodeC");
    assert_ptr_equal(list->chunks[0].hosts[0], list->chunks[1].hosts[1]);  // "nodeA" stored once
    // Everything lies inside the block that starts at the list.
    const char *begin = reinterpret_cast<const char *>(list);
    const char *inside = list->chunks[1].hosts[0];
    assert_true(inside > begin && inside < begin + 4096);
    DLI_free(list);
}

void a_chunk_map_counts_each_process(void **) {
    ChunkTable table = three_chunks();
    DLI_Chunk_map *map = pack_chunk_map(table, {"nodeB", "nodeD", "nodec.example"});
    assert_int_equal(map->all.count, 3);
    assert_int_equal(map->nprocesses, 3);
    assert_string_equal(map->processes[0].process, "nodeB");
    assert_int_equal(map->processes[0].count, 2);
    assert_int_equal(map->processes[0].chunk_index[0], 0);
    assert_int_equal(map->processes[0].chunk_index[1], 1);
    assert_int_equal(map->processes[0].local_bytes, 200);
    assert_int_equal(map->processes[1].count, 0);
    assert_int_equal(map->processes[1].local_bytes, 0);
    assert_int_equal(map->processes[2].count, 2);
    assert_int_equal(map->processes[2].local_bytes, 150);
    DLI_free(map);
    DLI_Directory_map *dir = pack_directory_map("/data", {table, ChunkTable{"/data/empty", 0, {}}}, {"nodeA"});
    assert_int_equal(dir->nfiles, 2);
    assert_string_equal(dir->files[1].all.file, "/data/empty");
    assert_int_equal(dir->files[1].all.count, 0);
    assert_int_equal(dir->files[0].processes[0].local_bytes, 150);
    DLI_free(dir);
}

void every_host_is_local_everywhere(void **) {
    ChunkTable table = three_chunks();
    table.chunks[1].hosts = {every_host};
    assert_int_equal(chunks_local_to(table, "nodeQ").size(), 1);
    assert_int_equal(chunks_local_to(table, "nodeA").size(), 3);
}

}  // namespace

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(settings_come_from_hints_over_the_environment),
        cmocka_unit_test(unusable_settings_are_refused),
        cmocka_unit_test(host_names_match_as_documented),
        cmocka_unit_test(this_host_follows_piox_hostname),
        cmocka_unit_test(chunk_tables_must_tile_the_file),
        cmocka_unit_test(the_wire_form_round_trips_and_refuses_garbage),
        cmocka_unit_test(a_chunk_list_is_one_block_with_shared_host_names),
        cmocka_unit_test(a_chunk_map_counts_each_process),
        cmocka_unit_test(every_host_is_local_everywhere),
    };
    int failed = cmocka_run_group_tests_name("dli_core", tests, nullptr, nullptr);
    MPI_Finalize();
    return failed == 0 ? 0 : 1;
}
