// item_processor.cpp - reading directories and visiting entries.
//
// A directory is visited when its own item is processed, after it was opened: so an
// unreadable directory is delivered once, with its errno, and PFTW_SKIP_SUBTREE
// stops it from being read at all. Other entries are visited from the batch of
// names their directory's read produced.
#include "item_processor.h"

#include "long_path.h"
#include "ticks.h"

#include <cerrno>
#include <cstring>

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace pftw {

namespace {

constexpr size_t kDirentBufferBytes = 256 * 1024;
// Names per batch: large enough that queue operations cost little per entry, small
// enough that a directory of 200,000 entries makes hundreds of units to share.
constexpr size_t kBatchNames = 512;
constexpr int kOpenDirectoryFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

struct LinuxDirent64 {
    ino64_t d_ino;
    off64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

PFTW_Type type_of_dtype(unsigned char dtype)
{
    switch (dtype) {
    case DT_REG: return PFTW_TYPE_FILE;
    case DT_DIR: return PFTW_TYPE_DIR;
    case DT_LNK: return PFTW_TYPE_SYMLINK;
    case DT_UNKNOWN: return PFTW_TYPE_UNKNOWN;
    default: return PFTW_TYPE_OTHER;
    }
}

PFTW_Type type_of_mode(mode_t mode)
{
    if (S_ISREG(mode))
        return PFTW_TYPE_FILE;
    if (S_ISDIR(mode))
        return PFTW_TYPE_DIR;
    if (S_ISLNK(mode))
        return PFTW_TYPE_SYMLINK;
    return PFTW_TYPE_OTHER;
}

bool is_dot_or_dotdot(const char *name)
{
    return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

// Where a child's name starts in the path built from its directory's path.
size_t child_name_offset(const std::string &directory_path)
{
    return directory_path.size() + (directory_path.back() == '/' ? 0 : 1);
}

}  // namespace

ItemProcessor::ItemProcessor(WalkContext *context, int thread)
    : context_(context), thread_(thread), dirent_buffer_(new char[kDirentBufferBytes])
{
}

void ItemProcessor::process(WorkItem &item)
{
    if (context_->stopped.load(std::memory_order_relaxed))
        return;
    if (item.kind == WorkItem::Kind::directory)
        read_directory(item);
    else
        visit_names(item);
}

bool ItemProcessor::reads_below(int depth) const
{
    return context_->options.max_depth < 0 || depth < context_->options.max_depth;
}

bool ItemProcessor::stat_at(int dir, const char *name, struct stat *st, int *error)
{
    uint64_t start = ticks_now();
    bool ok = fstatat(dir, name, st, AT_SYMLINK_NOFOLLOW) == 0;
    *error = ok ? 0 : errno;
    tally_.ticks_stat += ticks_now() - start;
    return ok;
}

int ItemProcessor::visit(const std::string &path, size_t name_offset, PFTW_Type type, int depth,
                         const struct stat *st, int error)
{
    PFTW_Entry entry;
    entry.path = path.c_str();
    entry.path_length = path.size();
    entry.name_offset = name_offset;
    entry.type = type;
    entry.depth = depth;
    entry.st = context_->options.stat ? st : nullptr;
    entry.error = error;
    entry.thread = thread_;

    tally_.entries++;
    visited_.store(tally_.entries, std::memory_order_relaxed);
    switch (type) {
    case PFTW_TYPE_FILE: tally_.files++; break;
    case PFTW_TYPE_DIR: tally_.directories++; break;
    case PFTW_TYPE_SYMLINK: tally_.symlinks++; break;
    default: tally_.others++; break;
    }
    if (entry.st)
        tally_.bytes += static_cast<uint64_t>(entry.st->st_size);
    if (error)
        tally_.errors++;

    uint64_t start = ticks_now();
    int verdict = context_->visit(&entry, context_->extra);
    tally_.ticks_visit += ticks_now() - start;
    if (verdict == PFTW_STOP && !context_->stopped.exchange(true)) {
        context_->stop_to_announce.store(true);
        context_->queue.clear();
    }
    return verdict;
}

void ItemProcessor::read_directory(WorkItem &item)
{
    uint64_t start = ticks_now();
    int fd = item.parent ? openat(item.parent->fd(), item.path.c_str() + item.name_offset, kOpenDirectoryFlags)
                         : open_long_path(item.path, kOpenDirectoryFlags);
    int error = fd < 0 ? errno : 0;
    tally_.ticks_readdir += ticks_now() - start;
    if (fd < 0) {
        directory_unopenable(item, error);
        return;
    }
    DirectoryRef directory = std::make_shared<OpenDirectory>(fd, &context_->open_directories);
    item.parent.reset();  // the parent's descriptor is no longer needed

    struct stat st;
    bool have_stat = false;
    if (context_->options.stat || context_->options.xdev) {
        uint64_t stat_start = ticks_now();
        have_stat = fstat(fd, &st) == 0;
        tally_.ticks_stat += ticks_now() - stat_start;
    }
    int verdict = visit(item.path, item.name_offset, PFTW_TYPE_DIR, item.depth, have_stat ? &st : nullptr, 0);
    bool other_device = context_->options.xdev && have_stat && st.st_dev != context_->root_device;
    if (verdict == PFTW_CONTINUE && reads_below(item.depth) && !other_device)
        read_entries(item, directory);
}

// Opening failed. A directory that is unreadable is still an entry: visit it with the
// errno. One that is no directory any more (replaced during the walk, or a root that
// is a file or a link) is visited as what it is now.
void ItemProcessor::directory_unopenable(WorkItem &item, int error)
{
    struct stat st;
    int stat_error = 0;
    bool have_stat;
    if (item.parent) {
        have_stat = stat_at(item.parent->fd(), item.path.c_str() + item.name_offset, &st, &stat_error);
    } else {
        uint64_t start = ticks_now();
        have_stat = stat_long_path(item.path, item.name_offset, &st) == 0;
        stat_error = have_stat ? 0 : errno;
        tally_.ticks_stat += ticks_now() - start;
    }
    if (have_stat && !S_ISDIR(st.st_mode) && (error == ENOTDIR || error == ELOOP)) {
        visit(item.path, item.name_offset, type_of_mode(st.st_mode), item.depth, &st, 0);
        return;
    }
    PFTW_Type type = have_stat ? type_of_mode(st.st_mode) : (stat_error == ENOENT ? PFTW_TYPE_UNKNOWN : PFTW_TYPE_DIR);
    visit(item.path, item.name_offset, type, item.depth, have_stat ? &st : nullptr, error);
}

// Reads the names of an open directory into batches. Full batches are queued as
// soon as they fill, where idle threads and ranks can take them; the last one is
// done here.
void ItemProcessor::read_entries(const WorkItem &item, const DirectoryRef &directory)
{
    auto new_batch = [&] {
        WorkItem batch;
        batch.kind = WorkItem::Kind::names;
        batch.depth = item.depth + 1;
        batch.path = item.path;
        batch.parent = directory;
        return batch;
    };
    WorkItem batch = new_batch();
    char *buffer = dirent_buffer_.get();
    for (;;) {
        uint64_t start = ticks_now();
        long got = syscall(SYS_getdents64, directory->fd(), buffer, kDirentBufferBytes);
        tally_.ticks_readdir += ticks_now() - start;
        if (got <= 0) {
            if (got < 0)  // the directory was visited already; count the failed read
                tally_.errors++;
            break;
        }
        for (long at = 0; at < got;) {
            auto *dirent = reinterpret_cast<LinuxDirent64 *>(buffer + at);
            at += dirent->d_reclen;
            if (is_dot_or_dotdot(dirent->d_name))
                continue;
            batch.names.append(dirent->d_name);
            batch.names.push_back('\0');
            batch.types.push_back(dirent->d_type);
            if (batch.types.size() == kBatchNames) {
                context_->queue.push(std::move(batch));
                batch = new_batch();
            }
        }
        if (context_->stopped.load(std::memory_order_relaxed))
            return;
    }
    if (!batch.types.empty())
        visit_names(batch);
}

void ItemProcessor::visit_names(WorkItem &batch)
{
    if (!batch.parent) {  // a batch from another rank: open its directory by path
        uint64_t start = ticks_now();
        int fd = open_long_path(batch.path, kOpenDirectoryFlags);
        tally_.ticks_readdir += ticks_now() - start;
        if (fd >= 0)
            batch.parent = std::make_shared<OpenDirectory>(fd, &context_->open_directories);
    }
    const int dir = batch.parent ? batch.parent->fd() : -1;
    const int dir_error = batch.parent ? 0 : errno;
    const bool want_stat = context_->options.stat;
    path_.assign(batch.path);
    const size_t name_offset = child_name_offset(batch.path);
    if (name_offset > batch.path.size())
        path_.push_back('/');

    const char *name = batch.names.c_str();
    for (size_t i = 0; i < batch.types.size(); i++, name += std::strlen(name) + 1) {
        if (context_->stopped.load(std::memory_order_relaxed))
            return;
        path_.resize(name_offset);
        path_.append(name);
        PFTW_Type type = type_of_dtype(batch.types[i]);
        struct stat st;
        int error = dir_error;
        bool have_stat = false;
        if (dir >= 0 && (type == PFTW_TYPE_UNKNOWN || (want_stat && type != PFTW_TYPE_DIR))) {
            have_stat = stat_at(dir, name, &st, &error);
            if (have_stat)
                type = type_of_mode(st.st_mode);
        }
        if (type == PFTW_TYPE_DIR && dir >= 0) {
            WorkItem child;
            child.kind = WorkItem::Kind::directory;
            child.depth = batch.depth;
            child.path = path_;
            child.name_offset = static_cast<uint32_t>(name_offset);
            if (context_->open_directories.load(std::memory_order_relaxed) < context_->directory_budget)
                child.parent = batch.parent;
            context_->queue.push(std::move(child));
            continue;
        }
        visit(path_, name_offset, type, batch.depth, have_stat ? &st : nullptr, error);
    }
}

}  // namespace pftw
