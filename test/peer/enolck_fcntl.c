/* An LD_PRELOAD interposer that makes every fcntl record lock fail with ENOLCK,
 * as on a file system without working locks (NFS without lockd, some FUSE
 * mounts). It is the cheap reproduction of the lockless FUSE fixture: ROMIO's
 * ADIOI_GEN_SetLock sees the failure and aborts, piox must not care.
 *
 * Only the lock commands are refused; everything else (F_GETFL, F_SETFD, ...)
 * goes to the real fcntl. glibc exports fcntl and, for 64-bit offsets on
 * 32-bit ABIs and since 2.28 everywhere, fcntl64: both are wrapped.
 *
 * Build: gcc -shared -fPIC -o enolck.so enolck_fcntl.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>

typedef int (*fcntl_fn)(int, int, ...);

static int is_lock_command(int cmd)
{
    switch (cmd) {
    case F_GETLK:
    case F_SETLK:
    case F_SETLKW:
#if defined(F_GETLK64) && F_GETLK64 != F_GETLK
    case F_GETLK64:
#endif
#if defined(F_SETLK64) && F_SETLK64 != F_SETLK
    case F_SETLK64:
#endif
#if defined(F_SETLKW64) && F_SETLKW64 != F_SETLKW
    case F_SETLKW64:
#endif
#ifdef F_OFD_GETLK
    case F_OFD_GETLK:
    case F_OFD_SETLK:
    case F_OFD_SETLKW:
#endif
        return 1;
    default:
        return 0;
    }
}

/* The third argument is an int or a pointer depending on cmd, or absent; no
 * fcntl command takes more than one. Reading it as a pointer-sized integer and
 * passing it on unchanged is what glibc's own fcntl does on the ABIs we run on. */
static int forward(fcntl_fn *real, const char *symbol, int fd, int cmd, uintptr_t arg)
{
    if (!*real)
        *real = (fcntl_fn) dlsym(RTLD_NEXT, symbol);
    if (!*real) {
        errno = ENOSYS;
        return -1;
    }
    return (*real)(fd, cmd, arg);
}

#define DEFINE_FCNTL(name)                                   \
    static fcntl_fn real_##name;                             \
    int name(int fd, int cmd, ...)                           \
    {                                                        \
        va_list ap;                                          \
        va_start(ap, cmd);                                   \
        uintptr_t arg = va_arg(ap, uintptr_t);               \
        va_end(ap);                                          \
        if (is_lock_command(cmd)) {                          \
            errno = ENOLCK;                                  \
            return -1;                                       \
        }                                                    \
        return forward(&real_##name, #name, fd, cmd, arg);   \
    }

DEFINE_FCNTL(fcntl)
DEFINE_FCNTL(fcntl64)
