/* dli.h - libdli: where the chunks of a file are stored, for MPI programs.
 *
 * The data-locality interface of DL-MPI ("DL-MPI: Enabling Data Locality Computation
 * for MPI-based Data-Intensive Applications"): the paper's six DLI_* functions, with
 * its names, arguments and meanings, and its probability scheduler (Algorithm 1) as
 * DLI_Sched_*.
 *
 * A file is a list of chunks: an offset, a length, and the hosts that store a replica
 * of it, in replica order. Where the list comes from depends on the name:
 *   ceph://[FS_NAME]/PATH, or a path on a ceph-fuse or kernel CephFS mount
 *                                   -> libcephfs, one chunk per stripe unit
 *   webhdfs://HOST:PORT/PATH, hdfs://HOST[:PORT]/PATH
 *                                   -> HDFS through WebHDFS, one chunk per block
 *   a path under LOCALPREFIX of the hint dli_hdfs_mount=LOCALPREFIX=HDFSURL (or
 *   PIOX_DLI_HDFS_MOUNT): HDFS mounted locally (fuse-dfs)
 *                                   -> HDFS as above, under HDFSURL + the rest of the path
 *   a name listed in the map file (hint dli_map_file, or PIOX_DLI_MAP)
 *                                   -> that map (the "static" provider, see DLI_map.5)
 *   any other path                  -> the local file system ("posix")
 *
 * A host is named as MPI_Get_processor_name names it, unless PIOX_HOSTNAME is set.
 * Host names match case-insensitively, and a short name matches its qualified form
 * ("node1" matches "node1.cluster.example"). The host name "*" in a chunk's list means
 * every host: the posix provider says so when it has no other information.
 *
 * Every function returns DLI_SUCCESS (0) or a positive DLI_ERR_* code; DLI_strerror
 * names the code, and DLI_last_error describes the last failure of the calling thread
 * (which file, which server, what it said). On failure no output is written.
 *
 * Buffers: every structure a DLI_* function returns through a pointer-to-pointer
 * argument is one allocation, owned by the caller, released with DLI_free. Nothing
 * else needs freeing; strings and arrays inside it live in the same allocation.
 *
 * Link with -ldli. Independent of the rest of piox: needs only MPI.
 */
#ifndef DLI_H
#define DLI_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define DLI_API __attribute__((visibility("default")))
#else
#define DLI_API
#endif

/* Return codes. DLI_SUCCESS is 0; every other code is positive. */
enum {
    DLI_SUCCESS = 0,
    DLI_ERR_ARG,         /* a bad argument: NULL pointer, empty name, negative count, ... */
    DLI_ERR_INFO,        /* a dli_* hint or PIOX_DLI_* variable with a value that cannot be used */
    DLI_ERR_NOENT,       /* the file or directory does not exist */
    DLI_ERR_ACCESS,      /* permission denied by the file system or the server */
    DLI_ERR_CONNECT,     /* the storage service could not be reached (refused, timed out) */
    DLI_ERR_SERVER,      /* the storage service answered with an error of its own */
    DLI_ERR_PROTOCOL,    /* the storage service's answer was malformed or truncated */
    DLI_ERR_MAP,         /* a map file that does not follow DLI_map.5 */
    DLI_ERR_UNSUPPORTED, /* no provider for this name was built in (e.g. no libcephfs) */
    DLI_ERR_NOT_INIT,    /* a call that needs DLI_Init came before it or after DLI_Finalize */
    DLI_ERR_MPI,         /* an MPI call failed */
    DLI_ERR_NOMEM,       /* memory ran out */
    DLI_ERR_IO,          /* another system error (see DLI_last_error) */
    DLI_ERR_LASTCODE
};

/* One chunk of a file. */
typedef struct DLI_Chunk {
    int64_t offset;       /* first byte */
    int64_t length;       /* bytes; the last chunk may be shorter than the others */
    int index;            /* its position in the file's chunk list, from 0 */
    int nhosts;           /* number of replicas with a known host (may be 0) */
    const char **hosts;   /* nhosts host names, in replica order (primary first) */
} DLI_Chunk;

/* A list of chunks of one file, in offset order. */
typedef struct DLI_Chunk_list {
    const char *file;     /* the name the list was asked for */
    int64_t file_size;    /* bytes in the file */
    int total_chunks;     /* chunks in the whole file */
    int count;            /* chunks in this list */
    DLI_Chunk *chunks;    /* count chunks */
} DLI_Chunk_list;

/* Which chunks of one file are local to each of a group of processes. */
typedef struct DLI_Process_chunks {
    const char *process;  /* the host name, as passed in */
    int count;            /* chunks local to it */
    int *chunk_index;     /* count indices into DLI_Chunk_map.all.chunks, ascending */
    int64_t local_bytes;  /* bytes in those chunks */
} DLI_Process_chunks;

typedef struct DLI_Chunk_map {
    DLI_Chunk_list all;              /* every chunk of the file (all.count == all.total_chunks) */
    int nprocesses;
    DLI_Process_chunks *processes;   /* nprocesses entries, in the order passed in */
} DLI_Chunk_map;

/* The maps of every regular file directly under a directory, sorted by name. */
typedef struct DLI_Directory_map {
    const char *directory;
    int nfiles;
    DLI_Chunk_map *files;            /* nfiles maps; files[i].all.file is the file's name */
} DLI_Directory_map;

/* ---- Setup (optional for the six functions; needed for DLI_Load) ---------------- */

/* Collective over comm. Records the dli_* hints of info (MPI_INFO_NULL for none) for
 * every later call and learns each rank's host name. Without DLI_Init the six
 * functions still work, configured by the environment alone. */
DLI_API int DLI_Init(MPI_Comm comm, MPI_Info info);

/* Collective over DLI_Init's communicator: rank 0 asks the provider once and shares
 * the chunk list, so a job makes one metadata request instead of one per rank; for
 * local files every rank reports what its host holds (see DLI_map.5, "posix"). Later
 * calls about NAME answer from that list without asking the storage again. */
DLI_API int DLI_Load(const char *name);

/* Collective over DLI_Init's communicator. Forgets hints and loaded lists. */
DLI_API int DLI_Finalize(void);

/* Collective over COMM, and independent of DLI_Init: FILE's chunk map for the ranks of
 * COMM, PROCESSES[r] being rank r's host, with the storage asked once as DLI_Load asks
 * it, configured by the dli_* hints of INFO (MPI_INFO_NULL for none) over the
 * environment. For a library that must not disturb the program's own DLI_Init (piox's
 * locality remapping). Every rank returns the same code. */
DLI_API int DLI_map_chunks_comm(MPI_Comm comm, MPI_Info info, const char *file, DLI_Chunk_map **map);

/* ---- The paper's six functions (Table I) -------------------------------------- */

/* The chunks of FILE that have a replica on host PROCESS. */
DLI_API int DLI_map_process_chunks(const char *file, const char *process, DLI_Chunk_list **chunks);

/* Every chunk of FILE, and for each of the NULL-terminated PROCESSES the chunks local to it. */
DLI_API int DLI_map_chunks_process(const char *file, const char **processes, DLI_Chunk_map **map);

/* DLI_map_chunks_process for every regular file directly under DIRECTORY. */
DLI_API int DLI_map_Dprocess_Dchunks(const char *directory, const char **processes,
                                     DLI_Directory_map **map);

/* How many chunks of FILE have a replica on host PROCESS. */
DLI_API int DLI_get_total_chunks(const char *file, const char *process, int *count);

/* The percentage (0 to 100) of FILE's bytes that have a replica on host PROCESS. */
DLI_API int DLI_get_data_percentage(const char *file, const char *process, double *percentage);

/* Whether the byte at *OFFSET of FILE has a replica on the calling process's own host.
 * (The paper's arguments: the offset is passed by address.) An offset at or past the
 * end of the file is DLI_ERR_ARG. */
DLI_API int DLI_check_data(const char *file, const size_t *offset, bool *local);

/* ---- Around them -------------------------------------------------------------- */

/* Releases a buffer returned by any DLI_* function. NULL is allowed. */
DLI_API void DLI_free(void *buffer);

/* A constant string naming CODE ("DLI_ERR_NOENT: no such file or directory"). */
DLI_API const char *DLI_strerror(int code);

/* What the calling thread's last failed DLI_* call found, e.g. "webhdfs://nn:9870/a:
 * HTTP 403 AccessControlException: Permission denied". Empty after a success. */
DLI_API const char *DLI_last_error(void);

/* The calling process's host name as the library matches it: PIOX_HOSTNAME, else
 * MPI_Get_processor_name (gethostname before MPI_Init). */
DLI_API int DLI_get_process_name(char *name, int size);

/* ---- The probability scheduler (Algorithm 1) --------------------------------- */

/* A rank on host i that asks for work gets one of the chunks host i holds, drawn with a
 * probability that grows with how long the other holders of each chunk are still busy
 * with their own local chunks; when host i holds none, one of the others, those whose
 * holders have the most local work left being the likeliest. Chunk indices below are
 * positions in CHUNKS->chunks (equal to DLI_Chunk.index for a whole-file list). Hosts
 * match as above; chunk hosts that run no rank count as holding nothing. */

/* The assignment the scheduler makes when the ranks ask in the paper's round-robin
 * order, weighted by speed (the static form, for SPMD codes): the rank asking next is
 * the one whose bytes so far divided by its speed is lowest, the lower rank on a tie,
 * so that with equal speeds it is round robin and bytes per rank stay proportional to
 * speed. Deterministic: every rank that calls it with the same arguments gets the same
 * answer, whatever the C++ library. */
typedef struct DLI_Assignment {
    int nchunks;
    int *rank_of_chunk;       /* nchunks entries: the rank that processes each chunk */
    int nranks;
    int64_t *bytes_of_rank;   /* nranks entries */
    int64_t local_bytes;      /* bytes assigned to a rank on a host that holds them */
    int64_t total_bytes;
} DLI_Assignment;

/* RANK_HOSTS has one host name per rank; SPEEDS has one relative speed per rank
 * (NULL: all equal; the paper's s_i, bytes per unit of time; each must be > 0). A
 * host's speed is the sum of its ranks'. */
DLI_API int DLI_Sched_static(const DLI_Chunk_list *chunks, int nranks, const char **rank_hosts,
                             const double *speeds, uint64_t seed, DLI_Assignment **assignment);

/* Locality remapping, for programs that never ask where data is (piox_locality=remap):
 * the order in which to show a file's chunks to a program whose NRANKS ranks each read
 * an equal share by offset, rank r the bytes from r * (size / nranks) and the last rank
 * to the end, so that each share lies in chunks its rank's host holds. The static
 * assignment (DLI_Sched_static with equal speeds and SEED) says which rank gets which
 * chunk; the chunks are then laid over the shares, where a share ends inside a chunk
 * placing the chunk with the most bytes local on both sides. Deterministic, like
 * DLI_Sched_static. The program sees a permutation of the chunks: right only for
 * order-independent processing. */
typedef struct DLI_Remap {
    int nchunks;                /* CHUNKS->count */
    int *order;                 /* nchunks indices into CHUNKS->chunks, in the order shown */
    int64_t local_bytes;        /* bytes the ranks read from their hosts' chunks, remapped */
    int64_t plain_local_bytes;  /* the same in the file's own order */
    int64_t total_bytes;
} DLI_Remap;

DLI_API int DLI_Sched_remap(const DLI_Chunk_list *chunks, int nranks, const char **rank_hosts,
                            uint64_t seed, DLI_Remap **remap);

/* The dynamic form, for master/worker codes: the master asks for the next chunk of an
 * idle rank and reports completions; each rank's speed is the bytes over the seconds of
 * the chunks it completed (before its first completion, the mean of the measured
 * ranks'), and a host's speed the sum of its ranks'. CHUNKS and RANK_HOSTS are copied.
 * Not thread-safe: one thread (the master) owns a DLI_Sched; distinct schedulers are
 * independent. */
typedef struct DLI_Sched_s *DLI_Sched;

DLI_API int DLI_Sched_create(const DLI_Chunk_list *chunks, int nranks, const char **rank_hosts,
                             uint64_t seed, DLI_Sched *sched);
/* *CHUNK_INDEX is the chunk RANK should process next, or -1 when none is left (every
 * chunk has been handed out). A rank may hold several chunks at once. */
DLI_API int DLI_Sched_next(DLI_Sched sched, int rank, int *chunk_index);
/* RANK finished CHUNK_INDEX (handed to it by DLI_Sched_next) in SECONDS (> 0). A chunk
 * handed to another rank or never handed out, a second completion, or SECONDS not a
 * positive number is DLI_ERR_ARG. */
DLI_API int DLI_Sched_complete(DLI_Sched sched, int rank, int chunk_index, double seconds);
/* Frees the scheduler and sets *SCHED to NULL (a NULL *SCHED is allowed). */
DLI_API int DLI_Sched_free(DLI_Sched *sched);

#ifdef __cplusplus
}
#endif
#endif /* DLI_H */
