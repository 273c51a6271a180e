/*
 * hostname_preload.c - bench/locality_e2e's stand-in for separate machines, for stock
 * MPICH: preloaded, gethostname() returns $PIOX_HOSTNAME when it is set and not empty.
 *
 * ROMIO matches cb_config_list against MPI_Get_processor_name, which MPICH's ch4 takes
 * from gethostname(); piox reads PIOX_HOSTNAME itself. With this library ROMIO sees the
 * ranks on the hosts piox and the penalty file system see. MPICH's node detection is
 * untouched: hydra hands every rank PMI_process_mapping, and the hostname fallback
 * (MPIR_NODEMAP_build_nodemap_fallback) runs only without it.
 *
 *   cc -shared -fPIC -o hostname_preload.so hostname_preload.c
 *   LD_PRELOAD=./hostname_preload.so mpiexec -n 1 -env PIOX_HOSTNAME nodeA ./program : ...
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int gethostname(char *name, size_t len)
{
    const char *forced = getenv("PIOX_HOSTNAME");
    if (!forced || !*forced) {
        int (*real)(char *, size_t) = (int (*)(char *, size_t))dlsym(RTLD_NEXT, "gethostname");
        return real ? real(name, len) : -1;
    }
    /* glibc's contract: the name truncated to len, and ENAMETOOLONG when it did not fit */
    size_t size = strlen(forced) + 1;
    memcpy(name, forced, size < len ? size : len);
    if (size > len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}
