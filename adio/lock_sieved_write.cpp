// The sieved write (piox_lock_sieved_write, piox_lock.h) of a lock that does not
// combine writes: across nodes, and the waitflag mutex.
#include "lock_service.h"
#include "sieve_pass.h"

#include <cerrno>

namespace piox::adio {

int LockService::sieved_write(int fd, const piox_extent *pieces, size_t n, const void *stream)
{
    std::vector<char> post(sieve_post_bytes(pieces, n));
    encode_sieve_post(pieces, n, stream, post.data(), post.size());
    const ExtentList span{post_header(post.data()).span};
    int rc = acquire(PIOX_LOCK_WRITE, span);
    if (rc != MPI_SUCCESS)
        return rc;
    std::vector<char> scratch;
    const int error = sieve_pass(fd, {post.data()}, &scratch);
    rc = release();
    if (error != 0) {
        errno = error;
        return MPI_ERR_IO;
    }
    return rc;
}

}  // namespace piox::adio
