/* tree_walk_floor.c - the floor for a file tree walk: what the kernel allows, with
 * nothing but the walk in the way. The tree_walk bench measures every walker against it.
 *
 *   tree_walk_floor [--threads N] [--stat | --no-stat] ROOT
 *
 * N threads (default 2) share one stack of work. A work item is a directory to read
 * (named relative to its parent's open descriptor) or, for directories too big for one
 * thread, a slice of its names to stat. Directories are read with raw getdents64 into a
 * 256 KiB buffer and entries are stat'ed with fstatat(dirfd, name, AT_SYMLINK_NOFOLLOW),
 * never by full path: no PATH_MAX limit, no path lookups. Links are never followed.
 * Without stat (--no-stat), types come from d_type alone.
 *
 * Descriptors: a directory stays open while subdirectories found in it wait on the
 * stack (they are opened with openat when popped) and is closed when the last one has
 * been opened. The stack is LIFO, so what is open is about one directory per level of
 * the current path, per thread: a 10,000-level chain keeps two open.
 *
 * Prints one JSON line: entries (the root included, as find counts), directories,
 * files, symlinks, others, bytes (sum of st_size; 0 without stat), errors (entries
 * whose stat failed, directories that could not be opened or read), seconds (the
 * walk only), threads, stat. Plain C and POSIX threads: it is a bench program.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define READ_BUFFER (256 * 1024)
#define SLICE 1024          /* names per stat work item when a buffer holds more */
#define PUSH_BATCH 256      /* subdirectories gathered before taking the stack's lock */
#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/* An open directory, shared by the work items that still need its descriptor. */
struct dir_handle {
    int fd;
    atomic_int refs;
};

enum work_kind { READ_DIR, STAT_NAMES };

struct work {
    enum work_kind kind;
    struct dir_handle *dir; /* READ_DIR: the parent (NULL: the root, from the cwd);
                               STAT_NAMES: the directory the names are in */
    int count;              /* STAT_NAMES: how many (d_type byte, name, NUL) records */
    char names[];           /* READ_DIR: the name; STAT_NAMES: the records */
};

struct counts {
    uint64_t entries, directories, files, symlinks, others, bytes, errors;
};

static struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    struct work **items;
    size_t size, capacity;
    int busy; /* threads working on an item: the walk ends when 0 and nothing is stacked */
} stack = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, 0, 0};

static bool with_stat = true;

/* Per thread: its counts, its read buffer, and subdirectories not yet pushed. */
struct walker {
    pthread_t thread;
    struct counts counts;
    char *buffer;
    struct work *pending[PUSH_BATCH];
    int npending;
};

static void *checked(void *pointer) {
    if (!pointer) {
        fputs("tree_walk_floor: out of memory\n", stderr);
        exit(1);
    }
    return pointer;
}

static void push(struct work **items, int n) {
    if (n == 0)
        return;
    pthread_mutex_lock(&stack.lock);
    if (stack.size + n > stack.capacity) {
        stack.capacity = 2 * (stack.size + n);
        stack.items = checked(realloc(stack.items, stack.capacity * sizeof *stack.items));
    }
    memcpy(stack.items + stack.size, items, n * sizeof *items);
    stack.size += n;
    pthread_cond_broadcast(&stack.changed);
    pthread_mutex_unlock(&stack.lock);
}

static void flush_pending(struct walker *w) {
    push(w->pending, w->npending);
    w->npending = 0;
}

static struct dir_handle *hold(struct dir_handle *dir) {
    atomic_fetch_add(&dir->refs, 1);
    return dir;
}

static void release(struct dir_handle *dir) {
    if (dir && atomic_fetch_sub(&dir->refs, 1) == 1) {
        close(dir->fd);
        free(dir);
    }
}

static struct work *new_work(enum work_kind kind, struct dir_handle *dir, size_t bytes) {
    struct work *item = checked(malloc(sizeof *item + bytes));
    item->kind = kind;
    item->dir = dir;
    item->count = 0;
    return item;
}

static void count_type(struct counts *c, unsigned char d_type) {
    switch (d_type) {
    case DT_DIR: c->directories++; break;
    case DT_REG: c->files++; break;
    case DT_LNK: c->symlinks++; break;
    default: c->others++; break;
    }
}

static unsigned char type_of_mode(mode_t mode) {
    return S_ISDIR(mode) ? DT_DIR : S_ISREG(mode) ? DT_REG : S_ISLNK(mode) ? DT_LNK : DT_UNKNOWN;
}

/* One entry of directory `dir`: stat it (or trust d_type), count it, and stack it if it
 * is a directory. */
static void visit(struct walker *w, struct dir_handle *dir, const char *name,
                  unsigned char d_type) {
    struct stat st;
    w->counts.entries++;
    if (with_stat || d_type == DT_UNKNOWN) {
        if (fstatat(dir->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
            d_type = type_of_mode(st.st_mode);
            if (with_stat)
                w->counts.bytes += st.st_size;
        } else {
            w->counts.errors++; /* vanished, or not ours to see: counted by d_type */
        }
    }
    count_type(&w->counts, d_type);
    if (d_type == DT_DIR) {
        size_t length = strlen(name) + 1;
        struct work *child = new_work(READ_DIR, hold(dir), length);
        memcpy(child->names, name, length);
        w->pending[w->npending++] = child;
        if (w->npending == PUSH_BATCH)
            flush_pending(w);
    }
}

static bool is_dot_or_dotdot(const char *name) {
    return name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]));
}

/* Cuts one getdents64 buffer into stat work items of SLICE names each. */
static void slice_buffer(struct dir_handle *dir, const char *buffer, long length) {
    struct work *slices[READ_BUFFER / (SLICE * 24) + 2];
    int nslices = 0;
    for (long offset = 0; offset < length;) {
        /* the records of up to SLICE names: first measure, then copy */
        size_t bytes = 0;
        int names = 0;
        long end = offset;
        for (; end < length && names < SLICE;) {
            const struct linux_dirent64 *e = (const void *)(buffer + end);
            if (!is_dot_or_dotdot(e->d_name)) {
                bytes += 1 + strlen(e->d_name) + 1;
                names++;
            }
            end += e->d_reclen;
        }
        if (names) {
            struct work *item = new_work(STAT_NAMES, hold(dir), bytes);
            char *out = item->names;
            for (long at = offset; at < end;) {
                const struct linux_dirent64 *e = (const void *)(buffer + at);
                if (!is_dot_or_dotdot(e->d_name)) {
                    size_t n = strlen(e->d_name) + 1;
                    *out++ = (char)e->d_type;
                    memcpy(out, e->d_name, n);
                    out += n;
                }
                at += e->d_reclen;
            }
            item->count = names;
            slices[nslices++] = item;
        }
        offset = end;
    }
    push(slices, nslices);
}

static int records_in(const char *buffer, long length) {
    int n = 0;
    for (long offset = 0; offset < length; n++)
        offset += ((const struct linux_dirent64 *)(const void *)(buffer + offset))->d_reclen;
    return n;
}

static void read_directory(struct walker *w, struct work *item) {
    int parent = item->dir ? item->dir->fd : AT_FDCWD;
    int fd = openat(parent, item->names, DIR_FLAGS);
    release(item->dir);
    if (fd < 0) {
        w->counts.errors++;
        return;
    }
    struct dir_handle *dir = checked(malloc(sizeof *dir));
    dir->fd = fd;
    atomic_init(&dir->refs, 1); /* ours, while we read */
    for (;;) {
        long length = syscall(SYS_getdents64, fd, w->buffer, READ_BUFFER);
        if (length <= 0) {
            if (length < 0)
                w->counts.errors++;
            break;
        }
        /* A buffer of many names is shared out, so that one huge directory does not
         * leave the other threads idle. */
        if (with_stat && records_in(w->buffer, length) > SLICE) {
            slice_buffer(dir, w->buffer, length);
            continue;
        }
        for (long offset = 0; offset < length;) {
            const struct linux_dirent64 *e = (const void *)(w->buffer + offset);
            if (!is_dot_or_dotdot(e->d_name))
                visit(w, dir, e->d_name, e->d_type);
            offset += e->d_reclen;
        }
        flush_pending(w);
    }
    flush_pending(w);
    release(dir);
}

static void stat_names(struct walker *w, struct work *item) {
    const char *record = item->names;
    for (int i = 0; i < item->count; i++) {
        unsigned char d_type = (unsigned char)record[0];
        visit(w, item->dir, record + 1, d_type);
        record += 1 + strlen(record + 1) + 1;
    }
    flush_pending(w);
    release(item->dir);
}

static void *walk(void *argument) {
    struct walker *w = argument;
    for (;;) {
        pthread_mutex_lock(&stack.lock);
        while (stack.size == 0 && stack.busy > 0)
            pthread_cond_wait(&stack.changed, &stack.lock);
        if (stack.size == 0) { /* and nobody busy: nothing more will come */
            pthread_cond_broadcast(&stack.changed);
            pthread_mutex_unlock(&stack.lock);
            return NULL;
        }
        struct work *item = stack.items[--stack.size];
        stack.busy++;
        pthread_mutex_unlock(&stack.lock);

        if (item->kind == READ_DIR)
            read_directory(w, item);
        else
            stat_names(w, item);
        free(item);

        pthread_mutex_lock(&stack.lock);
        if (--stack.busy == 0 && stack.size == 0)
            pthread_cond_broadcast(&stack.changed);
        pthread_mutex_unlock(&stack.lock);
    }
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void usage(void) {
    fputs("usage: tree_walk_floor [--threads N] [--stat | --no-stat] ROOT\n", stderr);
    exit(2);
}

int main(int argc, char **argv) {
    int threads = 2;
    const char *root = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            threads = atoi(argv[++i]);
            if (threads < 1)
                usage();
        } else if (!strcmp(argv[i], "--stat")) {
            with_stat = true;
        } else if (!strcmp(argv[i], "--no-stat")) {
            with_stat = false;
        } else if (argv[i][0] == '-' || root) {
            usage();
        } else {
            root = argv[i];
        }
    }
    if (!root)
        usage();
    /* Wide trees hold one descriptor per level with waiting subdirectories: allow many. */
    struct rlimit files;
    if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
        files.rlim_cur = files.rlim_max;
        setrlimit(RLIMIT_NOFILE, &files);
    }
    struct walker *walkers = checked(calloc(threads, sizeof *walkers));
    for (int i = 0; i < threads; i++)
        walkers[i].buffer = checked(malloc(READ_BUFFER));

    double started = now();
    /* The root is an entry too; it is read only if it is a directory (not a link). */
    struct counts *first = &walkers[0].counts;
    struct stat st;
    first->entries++;
    if (lstat(root, &st) != 0) {
        first->errors++;
        first->others++;
    } else {
        count_type(first, type_of_mode(st.st_mode));
        if (with_stat)
            first->bytes += st.st_size;
        if (S_ISDIR(st.st_mode)) {
            size_t length = strlen(root) + 1;
            struct work *item = new_work(READ_DIR, NULL, length);
            memcpy(item->names, root, length);
            push(&item, 1);
        }
    }
    for (int i = 0; i < threads; i++)
        if (pthread_create(&walkers[i].thread, NULL, walk, &walkers[i]) != 0) {
            fputs("tree_walk_floor: cannot start a thread\n", stderr);
            return 1;
        }
    struct counts total = {0};
    for (int i = 0; i < threads; i++) {
        pthread_join(walkers[i].thread, NULL);
        struct counts *c = &walkers[i].counts;
        total.entries += c->entries;
        total.directories += c->directories;
        total.files += c->files;
        total.symlinks += c->symlinks;
        total.others += c->others;
        total.bytes += c->bytes;
        total.errors += c->errors;
    }
    double seconds = now() - started;

    printf("{\"entries\": %llu, \"directories\": %llu, \"files\": %llu, \"symlinks\": %llu, "
           "\"others\": %llu, \"bytes\": %llu, \"errors\": %llu, \"seconds\": %.6f, "
           "\"threads\": %d, \"stat\": %s}\n",
           (unsigned long long)total.entries, (unsigned long long)total.directories,
           (unsigned long long)total.files, (unsigned long long)total.symlinks,
           (unsigned long long)total.others, (unsigned long long)total.bytes,
           (unsigned long long)total.errors, seconds, threads, with_stat ? "true" : "false");
    return 0;
}
