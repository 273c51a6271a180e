/* pftw.h - libpftw: a parallel file tree walk over MPI, shaped like an MPI-IO call.
 *
 * PFTW_Walk is collective over a communicator. Every rank keeps its own queue of
 * work; idle ranks ask peers for part of theirs (the DRQS, PA-DRQS and H-DRQS
 * algorithms of "On distributed file tree walk of parallel file systems", LANL) and
 * Dijkstra's token ring detects the end. There is no master rank.
 *
 * Every entry under the root, the root included, is passed to the visit callback
 * exactly once, on one rank. Symbolic links are reported, never followed. Errors on
 * single entries (EACCES, ENOENT for entries that vanish during the walk, ...) are
 * delivered to visit and counted; they never end the walk.
 *
 * Link with -lpftw. Independent of the rest of piox: needs only MPI.
 */
#ifndef PFTW_H
#define PFTW_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define PFTW_API __attribute__((visibility("default")))
#else
#define PFTW_API
#endif

/* Return codes. PFTW_SUCCESS is 0; every other code is positive. */
enum {
    PFTW_SUCCESS = 0,
    PFTW_STOPPED,        /* a visit callback returned PFTW_STOP: the walk ended early on every rank */
    PFTW_ERR_ARG,        /* a bad argument: NULL root or callback, MPI_COMM_NULL, ... */
    PFTW_ERR_INFO,       /* a pftw_* hint with a value that cannot be used */
    PFTW_ERR_NOT_SAME,   /* ranks passed different roots or hints */
    PFTW_ERR_THREAD,     /* pftw_threads > 1 but MPI was not initialised with at least
                            MPI_THREAD_FUNNELED, or PFTW_Walk was called off the main thread */
    PFTW_ERR_MPI,        /* an MPI call failed */
    PFTW_ERR_NOMEM,      /* memory ran out */
    PFTW_ERR_LASTCODE
};

/* What an entry is. From the directory entry's d_type, or from the stat. */
typedef enum {
    PFTW_TYPE_UNKNOWN = 0, /* neither d_type nor a stat could tell (the stat failed) */
    PFTW_TYPE_FILE,
    PFTW_TYPE_DIR,
    PFTW_TYPE_SYMLINK,
    PFTW_TYPE_OTHER        /* device, fifo or socket */
} PFTW_Type;

/* One entry, as passed to visit. Valid only during the call. */
typedef struct PFTW_Entry {
    const char *path;       /* root + "/" + ... + name, NUL-terminated (may exceed PATH_MAX) */
    size_t path_length;     /* strlen(path) */
    size_t name_offset;     /* path + name_offset is the entry's own name (0 for the root) */
    PFTW_Type type;
    int depth;              /* 0 for the root */
    const struct stat *st;  /* lstat-like data (links not followed) when pftw_stat=yes and
                               the stat succeeded; NULL otherwise */
    int error;              /* 0, or the errno of what failed for this entry: the stat, or
                               opening or reading a directory (its entry is still visited) */
    int thread;             /* 0 .. pftw_threads-1: which thread of this rank calls visit */
} PFTW_Entry;

/* What visit returns. */
enum {
    PFTW_CONTINUE = 0,
    PFTW_SKIP_SUBTREE = 1,  /* for a directory: do not read it (ignored for other types) */
    PFTW_STOP = 2           /* end the walk on every rank; PFTW_Walk returns PFTW_STOPPED */
};

/* With pftw_threads > 1, visit is called concurrently from several threads of a
 * rank (entry->thread tells which). It must not call MPI. */
typedef int (*PFTW_Visit_fn)(const PFTW_Entry *entry, void *extra);

/* What a walk measured. Totals are over all ranks and the same on every rank;
 * the fields marked "this rank" are the caller's own. */
typedef struct PFTW_Stats {
    /* totals */
    uint64_t entries;        /* entries visited, the root included */
    uint64_t directories;
    uint64_t files;
    uint64_t symlinks;
    uint64_t others;         /* devices, fifos, sockets, and entries whose type is unknown */
    uint64_t bytes;          /* sum of st_size over all entries (pftw_stat=yes only) */
    uint64_t errors;         /* entries delivered with error != 0 */
    double seconds;          /* the walk's wall time, the slowest rank's */
    uint64_t items_max;      /* the busiest rank's entries */
    double items_mean;       /* entries / ranks; load balance = items_max / items_mean */
    uint64_t messages;       /* messages the walk sent, all ranks */
    uint64_t message_bytes;  /* their payload bytes */
    /* this rank */
    int rank, size;
    uint64_t items;                /* entries this rank visited */
    uint64_t requests_fruitful;    /* work requests this rank sent that brought work */
    uint64_t requests_unfruitful;  /* ... that were answered "no work" */
    uint64_t requests_served;      /* requests from peers this rank answered with work */
    uint64_t token_rounds;         /* rank 0: rounds of the token it started; others: tokens forwarded */
    double time_visit;             /* seconds in visit (summed over this rank's threads) */
    double time_stat;              /* ... in stat calls */
    double time_readdir;           /* ... opening and reading directories */
    double time_comm;              /* ... in MPI calls and waiting for work */
    uint64_t *messages_to;         /* [size]: messages this rank sent to each rank */
    uint64_t *bytes_to;            /* [size]: their payload bytes */
} PFTW_Stats;

/* Walks the tree under root on every rank of comm (collective: every rank passes the
 * same root and hints). Hints, all optional:
 *   pftw_algorithm = drqs | pa-drqs | h-drqs   (default: h-drqs)
 *   pftw_threads   = N, threads per rank that read and visit (default: 1; h-drqs: the
 *                    node's cpus divided by the ranks on it)
 *   pftw_split     = random | equal             (default: random, the paper's DRQS)
 *   pftw_stat      = yes | no                   (default: no: types come from d_type)
 *   pftw_xdev      = yes | no                   (default: no; yes: stay on root's device)
 *   pftw_max_depth = N                          (default: unlimited; 0 = the root only)
 * stats may be NULL; otherwise release it with PFTW_Stats_free. Returns a PFTW_*
 * code, the same on every rank. */
PFTW_API int PFTW_Walk(MPI_Comm comm, const char *root, MPI_Info info, PFTW_Visit_fn visit,
              void *extra, PFTW_Stats *stats);

/* Called on rank 0 only, from the thread that called PFTW_Walk_progress, about every
 * interval seconds: entries visited so far on all ranks (as each rank last reported
 * them, so up to one interval old) and seconds since the walk began. */
typedef void (*PFTW_Progress_fn)(uint64_t entries, double seconds, void *extra);

/* PFTW_Walk plus a progress callback (NULL: none). Each rank reports its count to
 * rank 0 once per interval with one small message. */
PFTW_API int PFTW_Walk_progress(MPI_Comm comm, const char *root, MPI_Info info,
                                PFTW_Visit_fn visit, void *extra, PFTW_Progress_fn progress,
                                double interval, PFTW_Stats *stats);

/* Frees what PFTW_Walk allocated in stats (the per-rank message arrays). */
PFTW_API void PFTW_Stats_free(PFTW_Stats *stats);

/* A static string describing a PFTW_* return code. */
PFTW_API const char *PFTW_Error_string(int code);

/* The name of an entry type: "file", "dir", "symlink", "other", "unknown". */
PFTW_API const char *PFTW_Type_name(PFTW_Type type);

#ifdef __cplusplus
}
#endif
#endif /* PFTW_H */
