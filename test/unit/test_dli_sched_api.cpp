/*
 * test_dli_sched_api - unit tests (CMocka) of DLI_Sched_* (dli.h) through libdli: the
 * static assignment in its one-block buffer, host matching, the dynamic form handing out
 * every chunk once and refusing misuse, speeds measured from completions, and every
 * argument error with its code and message. No MPI calls: the scheduler needs none.
 */
#include <dli.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

extern "C" {
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
}

namespace {

// A chunk list built in C++, as a provider's would arrive: the chunks point into it.
struct ChunkList {
    std::vector<std::vector<const char *>> hosts;
    std::vector<DLI_Chunk> chunks;
    DLI_Chunk_list list{};

    ChunkList(const std::vector<std::vector<const char *>> &holders, int64_t chunk_bytes) : hosts(holders) {
        for (size_t i = 0; i < hosts.size(); ++i) {
            DLI_Chunk chunk{};
            chunk.offset = static_cast<int64_t>(i) * chunk_bytes;
            chunk.length = chunk_bytes;
            chunk.index = static_cast<int>(i);
            chunk.nhosts = static_cast<int>(hosts[i].size());
            chunk.hosts = hosts[i].data();
            chunks.push_back(chunk);
        }
        list.file = "test";
        list.file_size = static_cast<int64_t>(hosts.size()) * chunk_bytes;
        list.total_chunks = list.count = static_cast<int>(chunks.size());
        list.chunks = chunks.data();
    }
};

// Chunks spread over hosts a, b, c: chunk i on host i % 3 and host (i + 1) % 3.
ChunkList spread(int count, int64_t chunk_bytes = 100) {
    static const char *names[] = {"a", "b", "c"};
    std::vector<std::vector<const char *>> holders;
    for (int i = 0; i < count; ++i) holders.push_back({names[i % 3], names[(i + 1) % 3]});
    return ChunkList(holders, chunk_bytes);
}

void assert_failure(int rc, int code, const char *message_part) {
    assert_int_equal(rc, code);
    if (!std::strstr(DLI_last_error(), message_part)) fail_msg("\"%s\" lacks \"%s\"", DLI_last_error(), message_part);
}

// ---- DLI_Sched_static ----------------------------------------------------------

void static_assignment_covers_every_chunk_once(void **) {
    ChunkList chunks = spread(30);
    const char *hosts[] = {"a", "b", "c", "a"};
    DLI_Assignment *assignment = nullptr;
    assert_int_equal(DLI_Sched_static(&chunks.list, 4, hosts, nullptr, 7, &assignment), DLI_SUCCESS);
    assert_string_equal(DLI_last_error(), "");
    assert_int_equal(assignment->nchunks, 30);
    assert_int_equal(assignment->nranks, 4);
    std::vector<int64_t> bytes(4, 0);
    int64_t local = 0;
    for (int i = 0; i < 30; ++i) {
        const int rank = assignment->rank_of_chunk[i];
        assert_in_range(rank, 0, 3);
        bytes[static_cast<size_t>(rank)] += 100;
        for (int h = 0; h < chunks.chunks[static_cast<size_t>(i)].nhosts; ++h)
            if (std::strcmp(chunks.chunks[static_cast<size_t>(i)].hosts[h], hosts[rank]) == 0) local += 100;
    }
    for (int r = 0; r < 4; ++r) assert_int_equal(assignment->bytes_of_rank[r], bytes[static_cast<size_t>(r)]);
    assert_int_equal(assignment->total_bytes, 3000);
    assert_int_equal(assignment->local_bytes, local);
    // Every host holds 20 of the 30 chunks: round robin over 4 ranks keeps them all local.
    assert_int_equal(local, 3000);
    DLI_free(assignment);
}

void static_hosts_match_as_the_library_matches_them(void **) {
    // "A" is "a.cluster.example"; the second "b" rank shares its host with the first.
    ChunkList chunks({{"a.cluster.example"}, {"B"}, {"b"}, {"elsewhere"}}, 10);
    const char *hosts[] = {"A", "b", "b.cluster.example"};
    DLI_Assignment *assignment = nullptr;
    assert_int_equal(DLI_Sched_static(&chunks.list, 3, hosts, nullptr, 1, &assignment), DLI_SUCCESS);
    assert_int_equal(assignment->rank_of_chunk[0], 0);
    assert_in_range(assignment->rank_of_chunk[1], 1, 2);
    assert_in_range(assignment->rank_of_chunk[2], 1, 2);
    assert_int_equal(assignment->local_bytes, 30);  // the chunk on "elsewhere" cannot be local
    DLI_free(assignment);
}

void static_is_deterministic_by_seed(void **) {
    ChunkList chunks = spread(200);
    const char *hosts[] = {"a", "b", "c", "c", "d"};
    const double speeds[] = {1, 2, 1.5, 3, 1};
    DLI_Assignment *first = nullptr, *again = nullptr, *other = nullptr;
    assert_int_equal(DLI_Sched_static(&chunks.list, 5, hosts, speeds, 99, &first), DLI_SUCCESS);
    assert_int_equal(DLI_Sched_static(&chunks.list, 5, hosts, speeds, 99, &again), DLI_SUCCESS);
    assert_int_equal(DLI_Sched_static(&chunks.list, 5, hosts, speeds, 100, &other), DLI_SUCCESS);
    assert_memory_equal(first->rank_of_chunk, again->rank_of_chunk, 200 * sizeof(int));
    assert_memory_not_equal(first->rank_of_chunk, other->rank_of_chunk, 200 * sizeof(int));
    DLI_free(first);
    DLI_free(again);
    DLI_free(other);
}

void static_bytes_follow_speeds(void **) {
    ChunkList chunks = spread(70, 64);
    const char *hosts[] = {"a", "b", "c"};
    const double speeds[] = {1, 2, 4};
    DLI_Assignment *assignment = nullptr;
    assert_int_equal(DLI_Sched_static(&chunks.list, 3, hosts, speeds, 5, &assignment), DLI_SUCCESS);
    assert_int_equal(assignment->bytes_of_rank[0], 640);
    assert_int_equal(assignment->bytes_of_rank[1], 1280);
    assert_int_equal(assignment->bytes_of_rank[2], 2560);
    DLI_free(assignment);
}

void static_of_no_chunks_is_empty(void **) {
    ChunkList chunks({}, 1);
    const char *hosts[] = {"a"};
    DLI_Assignment *assignment = nullptr;
    assert_int_equal(DLI_Sched_static(&chunks.list, 1, hosts, nullptr, 1, &assignment), DLI_SUCCESS);
    assert_int_equal(assignment->nchunks, 0);
    assert_int_equal(assignment->bytes_of_rank[0], 0);
    assert_int_equal(assignment->total_bytes, 0);
    DLI_free(assignment);
}

void static_refuses_bad_arguments(void **) {
    ChunkList chunks = spread(3);
    const char *hosts[] = {"a", "b"};
    const char *null_host[] = {"a", nullptr};
    const char *empty_host[] = {"", "b"};
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    DLI_Assignment *untouched = reinterpret_cast<DLI_Assignment *>(0x1);
    DLI_Assignment **out = &untouched;
    assert_failure(DLI_Sched_static(nullptr, 2, hosts, nullptr, 1, out), DLI_ERR_ARG, "chunks is NULL");
    assert_failure(DLI_Sched_static(&chunks.list, 0, hosts, nullptr, 1, out), DLI_ERR_ARG, "nranks must be positive, not 0");
    assert_failure(DLI_Sched_static(&chunks.list, -2, hosts, nullptr, 1, out), DLI_ERR_ARG, "not -2");
    assert_failure(DLI_Sched_static(&chunks.list, 2, nullptr, nullptr, 1, out), DLI_ERR_ARG, "rank_hosts is NULL");
    assert_failure(DLI_Sched_static(&chunks.list, 2, null_host, nullptr, 1, out), DLI_ERR_ARG, "rank_hosts[1] is NULL or empty");
    assert_failure(DLI_Sched_static(&chunks.list, 2, empty_host, nullptr, 1, out), DLI_ERR_ARG, "rank_hosts[0]");
    for (double bad : {0.0, -1.0, nan, inf}) {
        const double speeds[] = {1, bad};
        assert_failure(DLI_Sched_static(&chunks.list, 2, hosts, speeds, 1, out), DLI_ERR_ARG, "speeds[1] must be a positive number");
    }
    assert_failure(DLI_Sched_static(&chunks.list, 2, hosts, nullptr, 1, nullptr), DLI_ERR_ARG, "assignment is NULL");
    assert_ptr_equal(untouched, reinterpret_cast<DLI_Assignment *>(0x1));
}

void a_malformed_chunk_list_is_refused(void **) {
    const char *hosts[] = {"a"};
    DLI_Assignment *assignment = nullptr;
    ChunkList chunks = spread(3);
    chunks.list.count = -1;
    assert_failure(DLI_Sched_static(&chunks.list, 1, hosts, nullptr, 1, &assignment), DLI_ERR_ARG, "chunks->count is negative (-1)");
    chunks.list.count = 3;
    chunks.list.chunks = nullptr;
    assert_failure(DLI_Sched_static(&chunks.list, 1, hosts, nullptr, 1, &assignment), DLI_ERR_ARG, "chunks->chunks is NULL");
    chunks.list.chunks = chunks.chunks.data();
    chunks.chunks[2].length = -5;
    assert_failure(DLI_Sched_static(&chunks.list, 1, hosts, nullptr, 1, &assignment), DLI_ERR_ARG, "chunks->chunks[2] has a negative length (-5)");
    chunks.chunks[2].length = 100;
    chunks.chunks[1].nhosts = -1;
    assert_failure(DLI_Sched_static(&chunks.list, 1, hosts, nullptr, 1, &assignment), DLI_ERR_ARG, "chunks->chunks[1] has a negative host count");
    chunks.chunks[1].nhosts = 2;
    chunks.chunks[1].hosts = nullptr;
    assert_failure(DLI_Sched_static(&chunks.list, 1, hosts, nullptr, 1, &assignment), DLI_ERR_ARG, "chunks->chunks[1].hosts is NULL");
    chunks.chunks[1].hosts = chunks.hosts[1].data();
    chunks.hosts[0][1] = nullptr;
    assert_failure(DLI_Sched_static(&chunks.list, 1, hosts, nullptr, 1, &assignment), DLI_ERR_ARG, "chunks->chunks[0].hosts[1] is NULL");
    assert_null(assignment);
    DLI_Sched sched = nullptr;
    assert_failure(DLI_Sched_create(&chunks.list, 1, hosts, 1, &sched), DLI_ERR_ARG, "chunks->chunks[0].hosts[1] is NULL");
    assert_null(sched);
}

// ---- the dynamic form -----------------------------------------------------------

DLI_Sched created(const ChunkList &chunks, int nranks, const char **hosts, uint64_t seed) {
    DLI_Sched sched = nullptr;
    assert_int_equal(DLI_Sched_create(&chunks.list, nranks, hosts, seed, &sched), DLI_SUCCESS);
    assert_non_null(sched);
    return sched;
}

int next_of(DLI_Sched sched, int rank) {
    int chunk = -2;
    assert_int_equal(DLI_Sched_next(sched, rank, &chunk), DLI_SUCCESS);
    return chunk;
}

void dynamic_hands_out_every_chunk_once(void **) {
    ChunkList chunks = spread(40);
    const char *hosts[] = {"a", "b", "c", "d"};
    DLI_Sched sched = created(chunks, 4, hosts, 3);
    std::vector<int> seen(40, 0);
    for (int turn = 0; turn < 40; ++turn) {
        const int rank = turn % 4, chunk = next_of(sched, rank);
        assert_in_range(chunk, 0, 39);
        ++seen[static_cast<size_t>(chunk)];
        assert_int_equal(DLI_Sched_complete(sched, rank, chunk, 0.5), DLI_SUCCESS);
    }
    for (int count : seen) assert_int_equal(count, 1);
    assert_int_equal(next_of(sched, 0), -1);
    assert_int_equal(next_of(sched, 3), -1);
    assert_int_equal(DLI_Sched_free(&sched), DLI_SUCCESS);
    assert_null(sched);
}

void dynamic_is_deterministic_by_seed(void **) {
    ChunkList chunks = spread(60);
    const char *hosts[] = {"a", "b", "c"};
    std::vector<int> orders[2];
    for (auto &order : orders) {
        DLI_Sched sched = created(chunks, 3, hosts, 11);
        for (int turn = 0; turn < 60; ++turn) {
            order.push_back(next_of(sched, turn % 3));
            assert_int_equal(DLI_Sched_complete(sched, turn % 3, order.back(), 1.0 + turn % 3), DLI_SUCCESS);
        }
        DLI_Sched_free(&sched);
    }
    assert_true(orders[0] == orders[1]);
}

void faster_hosts_process_proportionally_more(void **) {
    // An event loop: each rank asks when it is idle and completes at its host's speed
    // (1, 2, 4 chunks per second). 70 chunks on every host: the work ends after 10 s.
    std::vector<std::vector<const char *>> everywhere(70, {"a", "b", "c"});
    ChunkList chunks(everywhere, 100);
    const char *hosts[] = {"a", "b", "c"};
    const double speed[] = {1, 2, 4};
    DLI_Sched sched = created(chunks, 3, hosts, 2);
    std::vector<double> idle_at(3, 0.0);
    std::vector<int64_t> bytes(3, 0);
    for (;;) {
        int rank = 0;
        for (int r = 1; r < 3; ++r)
            if (idle_at[static_cast<size_t>(r)] < idle_at[static_cast<size_t>(rank)]) rank = r;
        const int chunk = next_of(sched, rank);
        if (chunk < 0) break;
        bytes[static_cast<size_t>(rank)] += 100;
        idle_at[static_cast<size_t>(rank)] += 1.0 / speed[rank];
        assert_int_equal(DLI_Sched_complete(sched, rank, chunk, 1.0 / speed[rank]), DLI_SUCCESS);
    }
    // Proportional: 1000, 2000, 4000 bytes; each within one chunk.
    for (int r = 0; r < 3; ++r)
        assert_true(std::fabs(static_cast<double>(bytes[static_cast<size_t>(r)]) - 1000.0 * speed[r]) <= 100);
    DLI_Sched_free(&sched);
}

void dynamic_refuses_misuse(void **) {
    ChunkList chunks = spread(6);
    const char *hosts[] = {"a", "b"};
    DLI_Sched sched = created(chunks, 2, hosts, 1);
    const int mine = next_of(sched, 0), theirs = next_of(sched, 1);
    int never = 0;
    while (never == mine || never == theirs) ++never;
    int chunk = 77;
    assert_failure(DLI_Sched_next(nullptr, 0, &chunk), DLI_ERR_ARG, "sched is NULL");
    assert_failure(DLI_Sched_next(sched, 2, &chunk), DLI_ERR_ARG, "rank 2 is not in [0, 2)");
    assert_failure(DLI_Sched_next(sched, -1, &chunk), DLI_ERR_ARG, "rank -1 is not in [0, 2)");
    assert_failure(DLI_Sched_next(sched, 0, nullptr), DLI_ERR_ARG, "chunk_index is NULL");
    assert_int_equal(chunk, 77);
    assert_failure(DLI_Sched_complete(nullptr, 0, mine, 1), DLI_ERR_ARG, "sched is NULL");
    assert_failure(DLI_Sched_complete(sched, 5, mine, 1), DLI_ERR_ARG, "rank 5 is not in [0, 2)");
    assert_failure(DLI_Sched_complete(sched, 0, 6, 1), DLI_ERR_ARG, "chunk 6 is not in [0, 6)");
    assert_failure(DLI_Sched_complete(sched, 0, -1, 1), DLI_ERR_ARG, "chunk -1 is not in [0, 6)");
    assert_failure(DLI_Sched_complete(sched, 0, never, 1), DLI_ERR_ARG, "was never handed out");
    assert_failure(DLI_Sched_complete(sched, 0, theirs, 1),
                   DLI_ERR_ARG, ("chunk " + std::to_string(theirs) + " was handed to rank 1, not rank 0").c_str());
    for (double bad : {0.0, -2.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()})
        assert_failure(DLI_Sched_complete(sched, 0, mine, bad), DLI_ERR_ARG, "seconds must be a positive number");
    assert_int_equal(DLI_Sched_complete(sched, 0, mine, 1), DLI_SUCCESS);
    assert_failure(DLI_Sched_complete(sched, 0, mine, 1), DLI_ERR_ARG, "was already completed");
    assert_int_equal(DLI_Sched_free(&sched), DLI_SUCCESS);
    assert_int_equal(DLI_Sched_free(&sched), DLI_SUCCESS);  // *sched is NULL now: nothing to do
    assert_failure(DLI_Sched_free(nullptr), DLI_ERR_ARG, "sched is NULL");
}

void create_refuses_bad_arguments(void **) {
    ChunkList chunks = spread(3);
    const char *hosts[] = {"a", "b"};
    DLI_Sched sched = nullptr;
    assert_failure(DLI_Sched_create(nullptr, 2, hosts, 1, &sched), DLI_ERR_ARG, "chunks is NULL");
    assert_failure(DLI_Sched_create(&chunks.list, 0, hosts, 1, &sched), DLI_ERR_ARG, "nranks must be positive");
    assert_failure(DLI_Sched_create(&chunks.list, 2, nullptr, 1, &sched), DLI_ERR_ARG, "rank_hosts is NULL");
    assert_failure(DLI_Sched_create(&chunks.list, 2, hosts, 1, nullptr), DLI_ERR_ARG, "sched is NULL");
    assert_null(sched);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(static_assignment_covers_every_chunk_once),
        cmocka_unit_test(static_hosts_match_as_the_library_matches_them),
        cmocka_unit_test(static_is_deterministic_by_seed),
        cmocka_unit_test(static_bytes_follow_speeds),
        cmocka_unit_test(static_of_no_chunks_is_empty),
        cmocka_unit_test(static_refuses_bad_arguments),
        cmocka_unit_test(a_malformed_chunk_list_is_refused),
        cmocka_unit_test(dynamic_hands_out_every_chunk_once),
        cmocka_unit_test(dynamic_is_deterministic_by_seed),
        cmocka_unit_test(faster_hosts_process_proportionally_more),
        cmocka_unit_test(dynamic_refuses_misuse),
        cmocka_unit_test(create_refuses_bad_arguments),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
