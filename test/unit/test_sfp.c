/*
 * test_sfp - unit tests (CMocka) of the adio core's C ABI, piox_sfp.h and
 * piox_node.h, in one process (an MPI singleton): the arithmetic and argument
 * checks of every call on both transports. Several processes are covered by
 * test/integration.
 */
#include "piox_node.h"
#include "piox_sfp.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static piox_sfp_transport transport_of(void **state) { return (piox_sfp_transport)(intptr_t)*state; }

static void fetch_add_returns_the_previous_value(void **state)
{
    piox_sfp *sfp = NULL;
    MPI_Offset previous = -1, current = -1;
    assert_int_equal(piox_sfp_create(MPI_COMM_SELF, 100, transport_of(state), &sfp), MPI_SUCCESS);
    assert_int_equal(piox_sfp_fetch_add(sfp, 5, &previous), MPI_SUCCESS);
    assert_int_equal(previous, 100);
    assert_int_equal(piox_sfp_fetch_add(sfp, 0, &previous), MPI_SUCCESS);
    assert_int_equal(previous, 105);
    assert_int_equal(piox_sfp_read(sfp, &current), MPI_SUCCESS);
    assert_int_equal(current, 105);
    assert_int_equal(piox_sfp_fetch_add(sfp, -1, &previous), MPI_ERR_ARG);
    assert_int_equal(piox_sfp_read(sfp, &current), MPI_SUCCESS);
    assert_int_equal(current, 105);
    assert_int_equal(piox_sfp_free(&sfp), MPI_SUCCESS);
    assert_null(sfp);
}

static void store_replaces_the_value(void **state)
{
    piox_sfp *sfp = NULL;
    MPI_Offset previous = -1, current = -1;
    assert_int_equal(piox_sfp_create(MPI_COMM_SELF, 9, transport_of(state), &sfp), MPI_SUCCESS);
    assert_int_equal(piox_sfp_store(sfp, 3), MPI_SUCCESS);
    assert_int_equal(piox_sfp_fetch_add(sfp, 4, &previous), MPI_SUCCESS);
    assert_int_equal(previous, 3);
    assert_int_equal(piox_sfp_store(sfp, 0), MPI_SUCCESS);
    assert_int_equal(piox_sfp_store(sfp, -1), MPI_ERR_ARG);
    assert_int_equal(piox_sfp_store(NULL, 1), MPI_ERR_ARG);
    assert_int_equal(piox_sfp_read(sfp, &current), MPI_SUCCESS);
    assert_int_equal(current, 0);
    assert_int_equal(piox_sfp_free(&sfp), MPI_SUCCESS);
}

static void ordered_gives_the_current_value_and_advances(void **state)
{
    piox_sfp *sfp = NULL;
    MPI_Offset offset = -1, current = -1;
    assert_int_equal(piox_sfp_create(MPI_COMM_SELF, 7, transport_of(state), &sfp), MPI_SUCCESS);
    assert_int_equal(piox_sfp_ordered(sfp, 10, &offset), MPI_SUCCESS);
    assert_int_equal(offset, 7);
    assert_int_equal(piox_sfp_ordered(sfp, 0, &offset), MPI_SUCCESS);
    assert_int_equal(offset, 17);
    assert_int_equal(piox_sfp_ordered(sfp, -3, &offset), MPI_ERR_ARG);
    assert_int_equal(piox_sfp_read(sfp, &current), MPI_SUCCESS);
    assert_int_equal(current, 17);
    assert_int_equal(piox_sfp_free(&sfp), MPI_SUCCESS);
}

static void update_sets_adds_and_refuses_negative_results(void **state)
{
    piox_sfp *sfp = NULL;
    MPI_Offset result = -1, current = -1;
    assert_int_equal(piox_sfp_create(MPI_COMM_SELF, 0, transport_of(state), &sfp), MPI_SUCCESS);
    assert_int_equal(piox_sfp_update(sfp, PIOX_SFP_SET, 40, &result), MPI_SUCCESS);
    assert_int_equal(result, 40);
    assert_int_equal(piox_sfp_update(sfp, PIOX_SFP_ADD, -15, &result), MPI_SUCCESS);
    assert_int_equal(result, 25);
    assert_int_equal(piox_sfp_update(sfp, PIOX_SFP_ADD, -26, NULL), MPI_ERR_ARG);
    assert_int_equal(piox_sfp_update(sfp, PIOX_SFP_SET, -1, NULL), MPI_ERR_ARG);
    assert_int_equal(piox_sfp_update(sfp, (piox_sfp_op)42, 1, NULL), MPI_ERR_ARG);
    assert_int_equal(piox_sfp_read(sfp, &current), MPI_SUCCESS);
    assert_int_equal(current, 25);
    assert_int_equal(piox_sfp_free(&sfp), MPI_SUCCESS);
}

static void transport_is_the_one_asked_for(void **state)
{
    piox_sfp *sfp = NULL;
    assert_int_equal(piox_sfp_create(MPI_COMM_SELF, 0, transport_of(state), &sfp), MPI_SUCCESS);
    const char *expected = transport_of(state) == PIOX_SFP_TRANSPORT_RMA ? "rma" : "shm";
    assert_string_equal(piox_sfp_transport_name(sfp), expected);
    assert_int_equal(piox_sfp_free(&sfp), MPI_SUCCESS);
}

static void null_arguments_are_refused(void **state)
{
    (void)state;
    MPI_Offset value = 0;
    piox_sfp *sfp = NULL;
    assert_int_equal(piox_sfp_create(MPI_COMM_SELF, 0, PIOX_SFP_TRANSPORT_AUTO, NULL), MPI_ERR_ARG);
    assert_int_equal(piox_sfp_fetch_add(NULL, 1, &value), MPI_ERR_ARG);
    assert_int_equal(piox_sfp_read(NULL, &value), MPI_ERR_ARG);
    assert_int_equal(piox_sfp_ordered(NULL, 1, &value), MPI_ERR_ARG);
    assert_int_equal(piox_sfp_update(NULL, PIOX_SFP_SET, 0, NULL), MPI_ERR_ARG);
    assert_int_equal(piox_sfp_free(NULL), MPI_ERR_ARG);
    assert_int_equal(piox_sfp_free(&sfp), MPI_ERR_ARG);
    assert_string_equal(piox_sfp_transport_name(NULL), "none");
    assert_int_equal(piox_sfp_create(MPI_COMM_SELF, 0, PIOX_SFP_TRANSPORT_AUTO, &sfp), MPI_SUCCESS);
    assert_int_equal(piox_sfp_read(sfp, NULL), MPI_ERR_ARG);
    assert_int_equal(piox_sfp_fetch_add(sfp, 1, NULL), MPI_ERR_ARG);
    assert_int_equal(piox_sfp_free(&sfp), MPI_SUCCESS);
}

static void host_name_can_be_forced(void **state)
{
    (void)state;
    char name[MPI_MAX_PROCESSOR_NAME];
    setenv("PIOX_HOSTNAME", "nodeX", 1);
    assert_int_equal(piox_host_name(name), MPI_SUCCESS);
    assert_string_equal(name, "nodeX");
    unsetenv("PIOX_HOSTNAME");
    assert_int_equal(piox_host_name(name), MPI_SUCCESS);
    assert_true(strlen(name) > 0);

    MPI_Comm node = MPI_COMM_NULL;
    int size = 0;
    assert_int_equal(piox_node_comm(MPI_COMM_SELF, &node), MPI_SUCCESS);
    MPI_Comm_size(node, &size);
    assert_int_equal(size, 1);
    MPI_Comm_free(&node);
}

#define FOR_BOTH_TRANSPORTS(test)                                                          \
    cmocka_unit_test_prestate(test, (void *)(intptr_t)PIOX_SFP_TRANSPORT_SHM),               \
        cmocka_unit_test_prestate(test, (void *)(intptr_t)PIOX_SFP_TRANSPORT_RMA)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        FOR_BOTH_TRANSPORTS(fetch_add_returns_the_previous_value),
        FOR_BOTH_TRANSPORTS(store_replaces_the_value),
        FOR_BOTH_TRANSPORTS(ordered_gives_the_current_value_and_advances),
        FOR_BOTH_TRANSPORTS(update_sets_adds_and_refuses_negative_results),
        FOR_BOTH_TRANSPORTS(transport_is_the_one_asked_for),
        cmocka_unit_test(null_arguments_are_refused),
        cmocka_unit_test(host_name_can_be_forced),
    };
    int failed = cmocka_run_group_tests_name("piox_sfp", tests, NULL, NULL);
    MPI_Finalize();
    return failed == 0 ? 0 : 1;
}
