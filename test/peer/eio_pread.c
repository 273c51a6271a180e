/* An LD_PRELOAD interposer that makes pread fail with EIO in one rank: a reader
 * whose disk fails, for the tests of piox's aggregate reads
 * (test_locality_aggregate.py). PIOX_TEST_EIO_RANK names the rank (PMI_RANK, as
 * hydra sets it) whose preads fail; every other process reads as usual.
 *
 * glibc exports pread and pread64 (the same function on 64-bit ABIs): both are
 * wrapped.
 *
 * Build: gcc -shared -fPIC -o eio_pread.so eio_pread.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef ssize_t (*pread_fn)(int, void *, size_t, off_t);

static int failing(void)
{
    const char *rank = getenv("PMI_RANK"), *failing_rank = getenv("PIOX_TEST_EIO_RANK");
    return rank != NULL && failing_rank != NULL && strcmp(rank, failing_rank) == 0;
}

static ssize_t through(const char *name, int fd, void *buf, size_t count, off_t offset)
{
    if (failing()) {
        errno = EIO;
        return -1;
    }
    pread_fn real = (pread_fn) dlsym(RTLD_NEXT, name);
    if (real == NULL) {
        errno = ENOSYS;
        return -1;
    }
    return real(fd, buf, count, offset);
}

ssize_t pread(int fd, void *buf, size_t count, off_t offset)
{
    return through("pread", fd, buf, count, offset);
}

ssize_t pread64(int fd, void *buf, size_t count, off_t offset)
{
    return through("pread64", fd, buf, count, offset);
}
