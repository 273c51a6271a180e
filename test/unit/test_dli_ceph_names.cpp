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

// What `body` throws: its code and message (DLI_SUCCESS and "" when nothing).
struct Outcome {
    int code = DLI_SUCCESS;
    std::string message;
    bool says(const std::string &words) const { return message.find(words) != std::string::npos; }
};

template <class Body> Outcome outcome_of(Body body) {
    Outcome outcome;
    try {
        body();
    } catch (const Error &e) {
        outcome = {e.code(), e.what()};
    }
    return outcome;
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
    Outcome bad = outcome_of([] { parse_ceph_url("ceph://"); });
    assert_true(bad.code == DLI_ERR_ARG && bad.says("ceph://: no path"));
    bad = outcome_of([] { parse_ceph_url("ceph://my fs/a"); });
    assert_true(bad.code == DLI_ERR_ARG && bad.says("\"my fs\" is not a file system name"));
    assert_int_equal(outcome_of([] { parse_ceph_url("ceph://a:b/c"); }).code, DLI_ERR_ARG);
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
Outcome provider_outcome(const Config &config, const std::string &name) {
    return outcome_of([&] { make_ceph_provider(config)->chunks(name); });
}

// A ceph.conf with TEXT, removed by the destructor.
class TemporaryConf {
public:
    explicit TemporaryConf(const std::string &text) {
        int fd = mkstemp(path_);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
        close(fd);
    }
    ~TemporaryConf() { unlink(path_); }
    const char *path() const { return path_; }

private:
    char path_[32] = "/tmp/dli-ceph-conf-XXXXXX";
};

bool without_libcephfs() {
    return outcome_of([] { make_ceph_provider(Config()); }).code == DLI_ERR_UNSUPPORTED;
}

void a_missing_or_useless_conf_is_a_settings_error(void **) {
    Config config;
    if (without_libcephfs()) {
        assert_int_equal(provider_outcome(config, "ceph:///x").code, DLI_ERR_UNSUPPORTED);
        skip();
    }
    config.ceph_conf = "/nonexistent/ceph.conf";
    Outcome missing = provider_outcome(config, "ceph:///x");
    assert_true(missing.code == DLI_ERR_INFO && missing.says("/nonexistent/ceph.conf: cannot read it"));
    TemporaryConf no_monitors("[global]\nfsid = 1\n");
    config.ceph_conf = no_monitors.path();
    Outcome useless = provider_outcome(config, "ceph:///x");
    assert_true(useless.code == DLI_ERR_INFO && useless.says("names no monitor (mon_host)"));
    assert_int_equal(provider_outcome(config, "ceph://no such fs/x").code, DLI_ERR_ARG);
    Outcome local = provider_outcome(config, "/etc/hostname");
    assert_true(local.code == DLI_ERR_ARG && local.says("/etc/hostname: neither a ceph:// name"));
}

void a_monitor_that_never_answers_is_a_connect_error(void **) {
    if (without_libcephfs()) skip();
    // Port 9 (discard) on 127.0.0.1: nothing listens there, so connecting is refused over and over.
    TemporaryConf dead("[global]\nmon host = v2:127.0.0.1:9\nauth client required = none\n"
                       "[client]\nlog file = /dev/null\n");
    Config config;
    config.ceph_conf = dead.path();
    config.timeout_ms = 1000;
    Outcome silent = provider_outcome(config, "ceph:///x");
    assert_true(silent.code == DLI_ERR_CONNECT && silent.says("no answer from the cluster of"));
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
