/*
 * test_dli_hdfs_mount - unit tests (CMocka) of dli_hdfs_mount (PIOX_DLI_HDFS_MOUNT),
 * libdli's HDFS reached through a local mount prefix: the setting's value taken apart
 * and every malformed one a DLI_ERR_INFO naming the setting, the HDFS name of a local
 * path (whole components, relative names, "..", odd bytes), and which provider answers.
 * No server: the same paths against the stand-in NameNode, read by an unmodified MPI
 * program, are test/integration/test_locality_remap_hdfs.py.
 */
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "config.h"
#include "error.h"
#include "providers/hdfs_mount.h"
#include "providers/provider.h"

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

Config mounted(const std::string &value) {
    Config config;
    config.hdfs_mount = parse_hdfs_mount("dli_hdfs_mount", value);
    return config;
}

void assert_name(const HdfsMount &mount, const std::string &path, const char *expected) {
    std::optional<std::string> name = hdfs_name_under_mount(mount, path);
    if (!expected) {
        if (name) fail_msg("%s: expected no HDFS name, got %s", path.c_str(), name->c_str());
        return;
    }
    if (!name || *name != expected)
        fail_msg("%s: expected %s, got %s", path.c_str(), expected, name ? name->c_str() : "none");
}

// The provider's name for NAME, or "unsupported" where libdli was built without the hdfs
// provider (its stub refuses: the choice was still hdfs).
std::string provider_name(const std::string &name, const Config &config) {
    try {
        return provider_for(name, config)->name();
    } catch (const Error &e) {
        if (e.code() == DLI_ERR_UNSUPPORTED && std::string(e.what()).find("hdfs provider") != std::string::npos)
            return "hdfs";
        throw;
    }
}

void the_setting_is_taken_apart(void **) {
    HdfsMount a = parse_hdfs_mount("dli_hdfs_mount", "/mnt/hdfs=hdfs://nn:8020/");
    assert_string_equal(a.local.c_str(), "/mnt/hdfs");
    assert_string_equal(a.remote.c_str(), "hdfs://nn:8020");
    // '=' in the local prefix: the separator is the '=' before the URL.
    HdfsMount b = parse_hdfs_mount("dli_hdfs_mount", "/mnt/a=b/=webhdfs://nn:9870/data//");
    assert_string_equal(b.local.c_str(), "/mnt/a=b");
    assert_string_equal(b.remote.c_str(), "webhdfs://nn:9870/data");
    HdfsMount c = parse_hdfs_mount("dli_hdfs_mount", "/mnt//hdfs/./=hdfs://nn");
    assert_string_equal(c.local.c_str(), "/mnt/hdfs");
    assert_string_equal(c.remote.c_str(), "hdfs://nn");
}

void malformed_settings_are_refused(void **) {
    struct Case {
        const char *value;
        const char *why;
    } cases[] = {
        {"", "expected LOCALPREFIX=HDFSURL"},
        {"/mnt/hdfs", "expected LOCALPREFIX=HDFSURL"},
        {"/mnt/hdfs=", "expected LOCALPREFIX=HDFSURL"},
        {"/mnt/hdfs=ftp://nn/", "expected LOCALPREFIX=HDFSURL"},
        {"/mnt/hdfs hdfs://nn/", "expected LOCALPREFIX=HDFSURL"},
        {"=hdfs://nn/", "is not an absolute path"},
        {"mnt/hdfs=hdfs://nn/", "is not an absolute path"},
        {"/=hdfs://nn/", "every local path would be taken for HDFS"},
        {"/mnt/..=hdfs://nn/", "every local path would be taken for HDFS"},
        {"/mnt/h\nx=hdfs://nn/", "a control byte in the local prefix"},
        {"/mnt/hdfs=hdfs:///data", "no NameNode host"},
        {"/mnt/hdfs=hdfs://alice@nn/", "user information"},
        {"/mnt/hdfs=hdfs://nn:99999/", "is not a port"},
        {"/mnt/hdfs=webhdfs://nn/a/../b", "\"..\" segment"},
        {"/mnt/hdfs=hdfs://nn/a\tb", "control byte"},
    };
    for (const Case &bad : cases)
        assert_fails(failure_of([&] { parse_hdfs_mount("dli_hdfs_mount", bad.value); }), DLI_ERR_INFO,
                     std::string("dli_hdfs_mount=") + bad.value + ": ");
    for (const Case &bad : cases)
        assert_fails(failure_of([&] { parse_hdfs_mount("dli_hdfs_mount", bad.value); }), DLI_ERR_INFO, bad.why);
}

void the_hint_and_the_variable_set_it(void **) {
    setenv("PIOX_DLI_HDFS_MOUNT", "/mnt/env=hdfs://env-nn:8020/", 1);
    Config env = config_from_environment();
    assert_string_equal(env.hdfs_mount.local.c_str(), "/mnt/env");
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "dli_hdfs_mount", "/mnt/hint=webhdfs://hint-nn:9870/d");
    Config hinted = config_with_hints(env, info);
    assert_string_equal(hinted.hdfs_mount.local.c_str(), "/mnt/hint");
    assert_string_equal(hinted.hdfs_mount.remote.c_str(), "webhdfs://hint-nn:9870/d");
    MPI_Info_set(info, "dli_hdfs_mount", "/mnt/hint");
    assert_fails(failure_of([&] { config_with_hints(env, info); }), DLI_ERR_INFO, "dli_hdfs_mount=/mnt/hint: ");
    MPI_Info_free(&info);
    setenv("PIOX_DLI_HDFS_MOUNT", "relative=hdfs://nn/", 1);
    assert_fails(failure_of([] { config_from_environment(); }), DLI_ERR_INFO, "PIOX_DLI_HDFS_MOUNT=relative");
    unsetenv("PIOX_DLI_HDFS_MOUNT");
    assert_true(config_from_environment().hdfs_mount.local.empty());
}

void paths_under_the_prefix_get_hdfs_names(void **) {
    HdfsMount root = parse_hdfs_mount("dli_hdfs_mount", "/mnt/hdfs=hdfs://nn:8020/");
    assert_name(root, "/mnt/hdfs/x", "hdfs://nn:8020/x");
    assert_name(root, "/mnt/hdfs/d/x.bin", "hdfs://nn:8020/d/x.bin");
    assert_name(root, "/mnt/hdfs", "hdfs://nn:8020/");
    assert_name(root, "/mnt/hdfs/", "hdfs://nn:8020/");
    assert_name(root, "/mnt//hdfs/./d/../x", "hdfs://nn:8020/x");
    assert_name(root, "/mnt/hdfsx", nullptr);     // whole components only
    assert_name(root, "/mnt/hdfs.bak/x", nullptr);
    assert_name(root, "/mnt/hdfs/../etc/passwd", nullptr);
    assert_name(root, "/mnt", nullptr);
    assert_name(root, "hdfs://nn:8020/x", nullptr);  // URLs are their own providers'
    assert_name(root, "", nullptr);
    // Bytes HDFS allows pass as they are (the URL encodes them later).
    assert_name(root, "/mnt/hdfs/a b/100%/ü?#", "hdfs://nn:8020/a b/100%/ü?#");

    HdfsMount sub = parse_hdfs_mount("dli_hdfs_mount", "/mnt/hdfs=webhdfs://nn:9870/user/alice/");
    assert_name(sub, "/mnt/hdfs", "webhdfs://nn:9870/user/alice");
    assert_name(sub, "/mnt/hdfs/x", "webhdfs://nn:9870/user/alice/x");

    // A relative name is taken from the working directory.
    char here[4096];
    assert_non_null(getcwd(here, sizeof here));
    HdfsMount cwd = parse_hdfs_mount("dli_hdfs_mount", std::string(here) + "=hdfs://nn/base");
    assert_name(cwd, "data/x.bin", "hdfs://nn/base/data/x.bin");
    assert_name(cwd, "./x", "hdfs://nn/base/x");
    assert_name(cwd, "../x", nullptr);

    assert_name(HdfsMount{}, "/mnt/hdfs/x", nullptr);  // no mount configured
}

void the_hdfs_provider_answers_under_the_prefix(void **) {
    Config config = mounted("/mnt/hdfs=hdfs://nn:8020/");
    assert_string_equal(provider_name("/mnt/hdfs/x", config).c_str(), "hdfs");
    assert_string_equal(provider_name("/mnt/hdfsx", config).c_str(), "posix");
    assert_string_equal(provider_name("/mnt/hdfs/x", Config{}).c_str(), "posix");

    // Listed in a map file too: the mount names the storage outright.
    char map[] = "/tmp/test_dli_hdfs_mount.XXXXXX";
    int fd = mkstemp(map);
    assert_true(fd >= 0);
    close(fd);
    std::ofstream(map) << "dli-map 1\nfile /mnt/hdfs/x\n0 10 nodeA\nfile /mnt/hdfsx\n0 10 nodeA\n";
    config.map_file = map;
    assert_string_equal(provider_name("/mnt/hdfs/x", config).c_str(), "hdfs");
    assert_string_equal(provider_name("/mnt/hdfsx", config).c_str(), "static");
    unlink(map);
}

void odd_bytes_under_the_prefix_are_clear_errors(void **) {
    Config config = mounted("/mnt/hdfs=hdfs://nn:8020/");
    std::unique_ptr<Provider> provider;
    Failure made = failure_of([&] { provider = provider_for("/mnt/hdfs/a\nb", config); });
    if (made.code == DLI_ERR_UNSUPPORTED) return;  // built without the hdfs provider
    assert_int_equal(made.code, DLI_SUCCESS);
    // Refused before any request: no NameNode is asked (nn does not resolve here anyway).
    Failure asked = failure_of([&] { provider->chunks("/mnt/hdfs/a\nb"); });
    assert_fails(asked, DLI_ERR_ARG, "control byte");
    assert_fails(asked, DLI_ERR_ARG, "/mnt/hdfs/a\nb (dli_hdfs_mount /mnt/hdfs=hdfs://nn:8020): hdfs://nn:8020/a\nb");
}

}  // namespace

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_setting_is_taken_apart),
        cmocka_unit_test(malformed_settings_are_refused),
        cmocka_unit_test(the_hint_and_the_variable_set_it),
        cmocka_unit_test(paths_under_the_prefix_get_hdfs_names),
        cmocka_unit_test(the_hdfs_provider_answers_under_the_prefix),
        cmocka_unit_test(odd_bytes_under_the_prefix_are_clear_errors),
    };
    int failed = cmocka_run_group_tests_name("dli_hdfs_mount", tests, nullptr, nullptr);
    MPI_Finalize();
    return failed == 0 ? 0 : 1;
}
