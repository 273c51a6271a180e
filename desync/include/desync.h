/* desync.h - libdesync: DesyncFS's versioned-block runtime on MPI (issue 18; the
 * paper "DesyncFS", its appendix A; our decisions in desync/NOTES.md).
 *
 * The application owns no data. It describes blocks and how to make them through
 * five stateless callbacks (a desynch_app table); the runtime owns every block as an
 * immutable, versioned value, decides which process computes which block (chunks,
 * leased to processes for ranges of versions), pushes new blocks to the processes
 * that will need them, and frees blocks once nothing can need them again.
 * desynch_Run runs one job collectively over a communicator; the six desynchBlock*
 * routines are called from inside the callbacks.
 *
 * A block address is a list of integers: dims[0] the file, dims[1] the version, then
 * the block's coordinates in the file (2 + the file's dimensions in all). A chunk or a
 * file is described by one inclusive range per component (chunkdesc).
 *
 * Errors are return codes, never aborts. Link with -ldesync; needs only MPI.
 */
#ifndef DESYNC_H
#define DESYNC_H

#include <mpi.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define DESYNC_API __attribute__((visibility("default")))
#else
#define DESYNC_API
#endif

/* Return codes: DESYNC_SUCCESS is 0, every other code positive. */
enum {
    DESYNC_SUCCESS = 0,
    DESYNC_ERR_ARG,         /* a NULL or malformed argument, MPI_COMM_NULL, an incomplete
                               callback table */
    DESYNC_ERR_HINT,        /* a desync_* hint that is unknown, malformed, or names a
                               feature this build does not have */
    DESYNC_ERR_NOT_RUNNING, /* a desynchBlock* routine called outside desynch_Run */
    DESYNC_ERR_ADDRESS,     /* a block address outside every file of the job */
    DESYNC_ERR_HANDLE,      /* desynchBlockFree of a handle that is not a live read */
    DESYNC_ERR_BUFFER,      /* desynchBlockWrite of a buffer not from desynchBlockMake,
                               already written, or shorter than the length given */
    DESYNC_ERR_NOT_MADE,    /* desynchBlockRead of a block this process must compute
                               first: it is missing from the block's backward dependencies */
    DESYNC_ERR_CONFLICT,    /* a block written twice with different bytes */
    DESYNC_ERR_APP,         /* a callback broke its contract (an iterator address outside
                               its chunk, a dependency list that never resolves, ...) */
    DESYNC_ERR_MPI,         /* an MPI call failed */
    DESYNC_ERR_NOMEM,       /* memory ran out */
    DESYNC_ERR_OTHER_RANK,  /* the job ended because another rank failed (see its message) */
    DESYNC_ERR_IO,          /* the checkpoint file could not be read or written, or is damaged */
    DESYNC_ERR_LASTCODE
};

/* The paper's struct range, named so as not to clash with applications' names. */
struct desynch_range {
    int max;
    int min;
};

typedef struct chunkdesc {
    int numdims;
    struct desynch_range *dims;
} chunkdesc;

typedef struct blockaddr {
    int numdims;
    int *dims;
} blockaddr;

/* A list the runtime allocates: baddrs has maxnum entries, each with room for the
 * file's numdims integers (numdims set). appDepList fills num entries. If a block has
 * more dependencies than maxnum, set num to the number needed and return 1 without
 * filling: the runtime calls again with a longer list. */
typedef struct baddrslist {
    int num;
    int maxnum;
    blockaddr *baddrs;
} baddrslist;

typedef void *rd_handle;

/* The largest numdims of an address: the file, the version and up to 6 coordinates. */
#define DESYNCH_MAX_DIMS 8

/* appDepList's dir. */
#define DESYNCH_BACKWARD 0 /* the blocks this block is computed from */
#define DESYNCH_FORWARD 1  /* the blocks computed from this block */

/* The application: the paper's five callbacks, plus appResult (ours, may be NULL). */
typedef struct desynch_app {
    /* The block's dependencies in direction dir, within `file` (the whole file's
     * ranges). Returns 1, or 0 when they cannot be known yet. Addresses outside the
     * file are ignored (a boundary block may simply list fewer). */
    int (*appDepList)(const blockaddr *baddr, const chunkdesc *file, baddrslist *list, int dir);
    /* Makes the block at baddr: desynchBlockRead of its backward dependencies,
     * desynchBlockMake, desynchBlockWrite at baddr, desynchBlockFree of the reads. */
    void (*appCompute)(const blockaddr *baddr, const chunkdesc *file);
    /* An iterator over the blocks of a chunk (for one version: dims[1].min == max). */
    void *(*appIterInit)(const chunkdesc *chunk);
    /* 1 and the next address in baddr (dims has room for chunk->numdims), or 0. */
    int (*appIterNext)(void *iter, blockaddr *baddr);
    void (*appIterDone)(void *iter);
    /* Ours: called when the job has ended, on the process that made each block of each
     * file's last version, so that the application can store its result. */
    void (*appResult)(const blockaddr *baddr, const void *data, size_t len);
} desynch_app;

/* What one process did in the last desynch_Run (desynch_Run's stats argument). */
typedef struct desynch_stats {
    double seconds;             /* this process's time in the job */
    long long owned;            /* blocks per version in this process's chunks (all files) */
    long long computed;         /* appCompute calls */
    long long recomputed;       /* of those, blocks made before elsewhere (freed, lost) */
    long long hits, misses;     /* requests served for blocks made / not yet made */
    long long requests;         /* requests sent */
    long long pushed;           /* blocks pushed to the owners of their forward dependencies */
    long long freed;            /* blocks freed by the garbage collector */
    long long peak_resident;    /* the most blocks this process held at once */
    long long resident_at_end;  /* blocks held when the job ended (the last versions) */
    long long replicated;       /* blocks sent to the buddy (desync_replicate) */
    long long duplicates;       /* blocks that came or were written again, with the same bytes */
    long long lost;             /* processes the map declared lost (the same on every rank) */
    long long taken_over;       /* blocks per version of lost processes' chunks made here since */
    long long checkpointed;     /* blocks this process wrote to the checkpoint file */
    long long resumed_from;     /* the checkpoint version the job resumed from, -1: none */
} desynch_stats;

/* The six routines of the paper's figure 9. They act on the job desynch_Run is running
 * on this process. Where the paper returns void, an error code; where it returns a
 * pointer or a truth value, the code of a failure is desynch_Last_error(). */
DESYNC_API void *desynchBlockMake(size_t blocksize);
DESYNC_API int desynchBlockExists(const blockaddr *baddr);
DESYNC_API rd_handle desynchBlockRead(const blockaddr *baddr, const void **bufp, size_t *lenp);
DESYNC_API int desynchBlockWrite(const blockaddr *baddr, void *data, size_t len);
DESYNC_API int desynchBlockMostRecent(const blockaddr *baddr1, blockaddr *baddr2);
DESYNC_API int desynchBlockFree(rd_handle dp);

/* Runs a job, collectively over comm: every rank passes the same hints and an
 * equivalent app. Returns when every file's last version exists: DESYNC_SUCCESS on
 * every rank, or the failing rank's code there and DESYNC_ERR_OTHER_RANK on the
 * others. stats (may be NULL) receives this process's figures. The hints
 * (desync(3)): desync_files (required), desync_chunks, desync_window. */
DESYNC_API int desynch_Run(MPI_Comm comm, MPI_Info info, const desynch_app *app,
                           desynch_stats *stats);

/* The code of the last failed routine on this process, and a code's text. The text of
 * the last failure, with its details (which hint, which address), is
 * desynch_Last_message(). */
DESYNC_API int desynch_Last_error(void);
DESYNC_API const char *desynch_Last_message(void);
DESYNC_API const char *desynch_Error_string(int code);

#ifdef __cplusplus
}
#endif

#endif
