/*
 * test_load_reader - unit tests (CMocka) of what piox-loadd's reader takes from the
 * shared file system (loader/server/file_reader.cpp): regular files of generated
 * sizes, each side of page boundaries, come back byte for byte through FileReader;
 * and a file that shrinks or grows between the lookup and the copy is served as the
 * lookup saw it, cut at its new end, never with the zeros past that end that a
 * mapped page holds. No MPI, no FUSE: a local directory (the op counts on FUSE are
 * test_loader_load.py's).
 */
#include "file_reader.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <random>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

extern "C" {
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
}

using piox_load::FileReader;
using piox_load::Item;

namespace {

std::string scratch_directory()
{
    char name[] = "/tmp/piox-load-reader.XXXXXX";
    if (mkdtemp(name) == nullptr) {
        perror("mkdtemp");
        exit(1);
    }
    return name;
}

std::string generated_bytes(size_t size, unsigned seed)
{
    std::mt19937 random(seed);
    std::string bytes(size, '\0');
    for (auto& byte : bytes)
        byte = static_cast<char>(1 + random() % 255);  // no zero: a zero tail would show
    return bytes;
}

void write_file(const std::string& path, const std::string& bytes)
{
    FILE* file = fopen(path.c_str(), "wb");
    assert_non_null(file);
    assert_int_equal(fwrite(bytes.data(), 1, bytes.size(), file), bytes.size());
    assert_int_equal(fclose(file), 0);
}

void files_come_back_byte_for_byte(void**)
{
    const long page = sysconf(_SC_PAGESIZE);
    std::string dir = scratch_directory();
    const size_t sizes[] = {1, 7, size_t(page) - 1, size_t(page), size_t(page) + 1, 3 * size_t(page) + 5,
                            (1u << 20) + 3, (5u << 20) - 1};
    std::mt19937 random(17);
    unsigned seed = 1;
    FileReader reader;
    for (size_t size : sizes) {
        for (size_t extra : {size_t(0), size_t(random() % 100000)}) {
            std::string path = dir + "/lib" + std::to_string(seed) + ".so";
            std::string bytes = generated_bytes(size + extra, seed++);
            write_file(path, bytes);
            Item item = reader.read(path);
            assert_int_equal(item.error, 0);
            assert_true(S_ISREG(item.mode));
            assert_int_equal(item.bytes.size(), bytes.size());
            assert_true(item.bytes == bytes);
            unlink(path.c_str());
        }
    }
    rmdir(dir.c_str());
}

// The lookup saw `before` bytes; by the copy the file holds `after`.
void served_as_looked_up(size_t before, size_t after)
{
    std::string dir = scratch_directory();
    std::string path = dir + "/changing.so";
    std::string bytes = generated_bytes(std::max(before, after), 5);
    write_file(path, bytes.substr(0, before));
    int handle = open(path.c_str(), O_PATH | O_CLOEXEC);
    assert_true(handle >= 0);
    if (after < before)
        assert_int_equal(truncate(path.c_str(), static_cast<off_t>(after)), 0);
    else
        write_file(path, bytes.substr(0, after));
    std::string got;
    assert_int_equal(piox_load::read_regular_file(handle, before, got), 0);
    assert_int_equal(got.size(), std::min(before, after));
    assert_true(got == bytes.substr(0, std::min(before, after)));
    close(handle);
    unlink(path.c_str());
    rmdir(dir.c_str());
}

void a_file_that_shrank_is_cut_at_its_new_end(void**)
{
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    served_as_looked_up(300000, 1000);           // mid page: the page's zeros are not served
    served_as_looked_up(300000, 2 * page);       // at a page boundary
    served_as_looked_up(300000, 0);
    served_as_looked_up(5 * page + 9, 5 * page + 8);
}

void a_file_that_grew_is_served_at_its_looked_up_size(void**)
{
    served_as_looked_up(1000, 300000);
    served_as_looked_up(8192, 8193);
}

void an_empty_file_and_a_missing_one(void**)
{
    std::string dir = scratch_directory();
    write_file(dir + "/empty.so", "");
    FileReader reader;
    Item empty = reader.read(dir + "/empty.so");
    assert_int_equal(empty.error, 0);
    assert_true(S_ISREG(empty.mode) && empty.bytes.empty());
    Item missing = reader.read(dir + "/missing.so");
    assert_int_equal(missing.error, ENOENT);
    unlink((dir + "/empty.so").c_str());
    rmdir(dir.c_str());
}

}  // namespace

int main()
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(files_come_back_byte_for_byte),
        cmocka_unit_test(a_file_that_shrank_is_cut_at_its_new_end),
        cmocka_unit_test(a_file_that_grew_is_served_at_its_looked_up_size),
        cmocka_unit_test(an_empty_file_and_a_missing_one),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
