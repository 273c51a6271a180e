/*
 * test_dli_ceph_names - unit tests (CMocka) of the ceph provider's names: the ceph://
 * grammar, /proc/self/mountinfo lines (escapes, optional fields, kernel and ceph-fuse
 * sources), finding the CephFS path of a mount path, and the provider's refusals that
 * need no cluster (no conf, a conf without monitors, a monitor nobody answers at).
 * What a real cluster answers is test/integration/test_dli_ceph.py.
 */
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "error.h"
#include "providers/ceph_names.h"
#include "providers/provider.h"

extern "C" {
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
}

using namespace dli;

namespace {

template <class Body> int code_of(Body body) {
    try {
        body();
        return DLI_SUCCESS;
    } catch (const Error &e) {
        return e.code();
    }
}

// A mountinfo text: a local root, a ceph-fuse mount whose point has a space and a tab,
// a bind mount of one of its subdirectories, a local file system mounted inside the
// ceph-fuse mount, kernel mounts in the old and the new source syntax, and noise.
const char *const sample_mountinfo =
    "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
    "42 22 0:39 / /mnt/ceph\\040fs\\011x rw,nosuid,nodev,relatime shared:7 master:3 - fuse.ceph-fuse ceph-fuse "
    "rw,user_id=0,group_id=0,allow_other\n"
    "44 22 0:39 /sub\\134dir /srv/bound rw - fuse.ceph-fuse ceph-fuse rw\n"
    "45 42 0:50 / /mnt/ceph\\040fs\\011x/scratch rw - tmpfs tmpfs rw\n"
    "50 22 0:60 / /k/old rw - ceph 10.0.0.1:6789,[::1]:6789:/volumes/v1 rw,name=admin,mds_namespace=second\n"
    "51 22 0:61 / /k/new rw - ceph admin@0a1b2c3d-0000-4000-8000-0123456789ab.third=/data rw,name=admin\n"
    "52 22 0:62 / /k/old rw - ext4 /dev/sdb1 rw\n"
    "this line is not a mount\n"
    "53 22 0:63 / relative rw - ceph a:/ rw\n"
    "\n";

void unescape_turns_octal_escapes_back_into_bytes(void **) {
    assert_string_equal(unescape_mount_field("/a\\040b\\011c\\012d\\134e").c_str(), "/a b\tc\nd\\e");
    // Not an escape: too short, not octal, or past one byte.
    assert_string_equal(unescape_mount_field("x\\04").c_str(), "x\\04");
    assert_string_equal(unescape_mount_field("x\\08a").c_str(), "x\\08a");
    assert_string_equal(unescape_mount_field("x\\400").c_str(), "x\\400");
    assert_string_equal(unescape_mount_field("\\303\\251").c_str(), "\xc3\xa9");  // UTF-8 e-acute
}

void mountinfo_lines_are_parsed_field_by_field(void **) {
    std::vector<MountEntry> mounts = parse_mountinfo(sample_mountinfo);
    assert_int_equal(mounts.size(), 7);  // the noise line and the relative mount point are skipped
    assert_string_equal(mounts[1].mount_point.c_str(), "/mnt/ceph fs\tx");
    assert_string_equal(mounts[1].root.c_str(), "/");
    assert_string_equal(mounts[1].fstype.c_str(), "fuse.ceph-fuse");  // after two optional fields
    assert_string_equal(mounts[1].source.c_str(), "ceph-fuse");
    assert_string_equal(mounts[2].root.c_str(), "/sub\\dir");
    assert_string_equal(mounts[4].source.c_str(), "10.0.0.1:6789,[::1]:6789:/volumes/v1");
    assert_string_equal(mounts[4].super_options.c_str(), "rw,name=admin,mds_namespace=second");
    assert_true(is_cephfs_type("fuse.ceph-fuse") && is_cephfs_type("ceph"));
    assert_false(is_cephfs_type("fuse") || is_cephfs_type("cephfs") || is_cephfs_type("ext4"));
}

void paths_are_normalized_without_touching_the_disk(void **) {
    assert_string_equal(normalize_path("/a//b/./c/", "/cwd").c_str(), "/a/b/c");
    assert_string_equal(normalize_path("x/../y", "/cwd/d").c_str(), "/cwd/d/y");
    assert_string_equal(normalize_path("/../..", "/cwd").c_str(), "/");
    assert_string_equal(normalize_path("", "/cwd").c_str(), "/cwd");
    assert_string_equal(normalize_path("/a b/\n/c", "/").c_str(), "/a b/\n/c");
}

void ceph_urls_name_a_file_system_and_a_path(void **) {
    CephPath p = parse_ceph_url("ceph:///dir/file");
    assert_string_equal(p.fs_name.c_str(), "");
    assert_string_equal(p.path.c_str(), "/dir/file");
    assert_true(p.local_path.empty());
    p = parse_ceph_url("ceph://fs_2.b-c/a b/\xc3\xa9\n");  // the path is taken byte for byte
    assert_string_equal(p.fs_name.c_str(), "fs_2.b-c");
    assert_string_equal(p.path.c_str(), "/a b/\xc3\xa9\n");
    assert_string_equal(parse_ceph_url("ceph://cephfs").path.c_str(), "/");
    assert_string_equal(parse_ceph_url("ceph:///").path.c_str(), "/");
    assert_int_equal(code_of([] { parse_ceph_url("ceph://"); }), DLI_ERR_ARG);
    assert_int_equal(code_of([] { parse_ceph_url("ceph://my fs/a"); }), DLI_ERR_ARG);
    assert_int_equal(code_of([] { parse_ceph_url("ceph://a:b/c"); }), DLI_ERR_ARG);
    assert_true(is_ceph_url("ceph://x") && !is_ceph_url("ceph:/x") && !is_ceph_url("/ceph://x"));
}

void mount_paths_map_to_paths_inside_the_file_system(void **) {
    std::vector<MountEntry> mounts = parse_mountinfo(sample_mountinfo);
    auto at = [&](const char *path) { return locate_on_cephfs(path, mounts); };
    auto fuse = at("/mnt/ceph fs\tx/d/f");
    assert_true(fuse.has_value());
    assert_string_equal(fuse->fs_name.c_str(), "");
    assert_string_equal(fuse->path.c_str(), "/d/f");
    assert_string_equal(at("/mnt/ceph fs\tx")->path.c_str(), "/");
    assert_false(at("/mnt/ceph fs\tx2/f").has_value());   // a longer name, not below the mount
    assert_false(at("/mnt/ceph fs\tx/scratch/f").has_value());  // a local fs mounted inside
    assert_string_equal(at("/srv/bound/f")->path.c_str(), "/sub\\dir/f");  // the bind mount's root
    auto new_kernel = at("/k/new/x/y");
    assert_string_equal(new_kernel->fs_name.c_str(), "third");
    assert_string_equal(new_kernel->path.c_str(), "/data/x/y");
    assert_false(at("/k/old/f").has_value());  // the later mount on /k/old covers the kernel one
    std::vector<MountEntry> kernel_only(mounts.begin() + 4, mounts.begin() + 5);
    auto covered = locate_on_cephfs("/k/old/f", kernel_only);
    assert_string_equal(covered->fs_name.c_str(), "second");
    assert_string_equal(covered->path.c_str(), "/volumes/v1/f");
    assert_false(at("/home/f").has_value());
    // A container whose root is a CephFS.
    std::vector<MountEntry> root = parse_mountinfo("1 0 0:9 /vol / rw - fuse.ceph-fuse ceph-fuse rw\n");
    assert_string_equal(locate_on_cephfs("/a", root)->path.c_str(), "/vol/a");
}

void ordinary_names_are_not_ceph_names(void **) {
    assert_true(is_ceph_name("ceph:///x"));
    assert_true(is_ceph_name("ceph://bad name"));  // the provider says what is wrong with it
    assert_false(is_ceph_name("/etc/hostname"));
    assert_false(is_ceph_name("relative/name"));
    assert_false(is_ceph_name(""));
    assert_false(is_ceph_name("hdfs://nn/x"));
}

// The provider's refusals before any cluster answers. Skipped without libcephfs.
int provider_code(const Config &config, const std::string &name) {
    return code_of([&] { make_ceph_provider(config)->chunks(name); });
}

void a_missing_or_useless_conf_is_a_settings_error(void **) {
    Config config;
    if (code_of([&] { make_ceph_provider(config); }) == DLI_ERR_UNSUPPORTED) {
        assert_int_equal(provider_code(config, "ceph:///x"), DLI_ERR_UNSUPPORTED);
        skip();
    }
    config.ceph_conf = "/nonexistent/ceph.conf";
    assert_int_equal(provider_code(config, "ceph:///x"), DLI_ERR_INFO);
    char no_monitors[] = "/tmp/dli-ceph-conf-XXXXXX";
    int fd = mkstemp(no_monitors);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "[global]\nfsid = 1\n", 18), 18);
    close(fd);
    config.ceph_conf = no_monitors;
    assert_int_equal(provider_code(config, "ceph:///x"), DLI_ERR_INFO);
    unlink(no_monitors);
    assert_int_equal(provider_code(config, "ceph://no such fs/x"), DLI_ERR_ARG);
    assert_int_equal(provider_code(config, "/etc/hostname"), DLI_ERR_ARG);  // not a ceph name
}

void a_monitor_that_never_answers_is_a_connect_error(void **) {
    Config config;
    if (code_of([&] { make_ceph_provider(config); }) == DLI_ERR_UNSUPPORTED) skip();
    char dead[] = "/tmp/dli-ceph-conf-XXXXXX";
    int fd = mkstemp(dead);
    assert_true(fd >= 0);
    // Port 9 (discard) on 127.0.0.1: nothing listens there, so connecting is refused over and over.
    const std::string text = "[global]\nmon host = v2:127.0.0.1:9\nauth client required = none\n"
                             "[client]\nlog file = /dev/null\n";
    assert_int_equal(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    close(fd);
    config.ceph_conf = dead;
    config.timeout_ms = 1000;
    assert_int_equal(provider_code(config, "ceph:///x"), DLI_ERR_CONNECT);
    unlink(dead);
}

}  // namespace

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unescape_turns_octal_escapes_back_into_bytes),
        cmocka_unit_test(mountinfo_lines_are_parsed_field_by_field),
        cmocka_unit_test(paths_are_normalized_without_touching_the_disk),
        cmocka_unit_test(ceph_urls_name_a_file_system_and_a_path),
        cmocka_unit_test(mount_paths_map_to_paths_inside_the_file_system),
        cmocka_unit_test(ordinary_names_are_not_ceph_names),
        cmocka_unit_test(a_missing_or_useless_conf_is_a_settings_error),
        cmocka_unit_test(a_monitor_that_never_answers_is_a_connect_error),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
