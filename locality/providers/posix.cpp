// posix.cpp - the posix provider: files on the local file system. Alone, a process knows
// nothing of other hosts, so every chunk is local everywhere ("*"). DLI_Load gathers
// what each host holds (posix_holding, combined by combine_posix_holdings) and then
// knows exactly: a node-local copy, even a sparse partly staged one, makes the chunks
// it holds in full local to its host.
#include "providers/posix.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "error.h"
#include "hosts.h"
#include "providers/provider.h"

namespace dli {
namespace {

// File systems whose files every node sees over the network, or through a user-space
// daemon that usually fetches them from elsewhere (FUSE: sshfs, ceph-fuse, s3fs, ...):
// a copy there is nobody's local copy. Anything else (ext4, xfs, btrfs, zfs, tmpfs,
// overlay, f2fs, ...) is the node's own.
bool shared_file_system(long type) {
    switch (static_cast<unsigned long>(type) & 0xffffffffUL) {
    case 0x6969UL:      // NFS
    case 0x517BUL:      // SMB
    case 0xFF534D42UL:  // CIFS
    case 0xFE534D42UL:  // SMB2
    case 0x0BD00BD0UL:  // Lustre
    case 0x47504653UL:  // GPFS
    case 0x00C36400UL:  // CephFS (kernel)
    case 0x19830326UL:  // BeeGFS
    case 0xAAD7AAEAUL:  // Panasas
    case 0x01021997UL:  // 9p
    case 0x65735546UL:  // FUSE
    case 0x5346414FUL:  // AFS
    case 0x7461636FUL:  // OCFS2
    case 0x01161970UL:  // GFS2
    case 0x20030528UL:  // OrangeFS / PVFS2
        return true;
    default:
        return false;
    }
}

class FileDescriptor {
public:
    explicit FileDescriptor(int fd) : fd_(fd) {}
    ~FileDescriptor() { if (fd_ >= 0) close(fd_); }
    FileDescriptor(const FileDescriptor &) = delete;
    FileDescriptor &operator=(const FileDescriptor &) = delete;
    int get() const { return fd_; }

private:
    int fd_;
};

// The byte ranges of FD that hold data; [0, size) where SEEK_DATA is not supported.
std::vector<std::pair<int64_t, int64_t>> data_ranges(int fd, int64_t size) {
    std::vector<std::pair<int64_t, int64_t>> ranges;
    int64_t at = 0;
    while (at < size) {
        off_t data = lseek(fd, at, SEEK_DATA);
        if (data < 0) {
            if (errno == ENXIO) break;  // only a hole is left
            return {{0, size}};         // no SEEK_DATA here: assume it all holds data
        }
        off_t hole = lseek(fd, data, SEEK_HOLE);
        if (hole < 0) return {{0, size}};
        ranges.emplace_back(data, std::min<int64_t>(hole, size));
        at = hole;
    }
    return ranges;
}

// Whether RANGES (sorted, disjoint) cover [first, last).
bool covers(const std::vector<std::pair<int64_t, int64_t>> &ranges, int64_t first, int64_t last) {
    for (const auto &range : ranges) {
        if (range.second <= first) continue;
        if (range.first > first) return false;
        first = range.second;
        if (first >= last) return true;
    }
    return first >= last;
}

ChunkTable chunked(const std::string &name, int64_t size, int64_t chunk_size) {
    ChunkTable table;
    table.file = name;
    table.file_size = size;
    for (int64_t offset = 0; offset < size; offset += chunk_size)
        table.chunks.push_back({offset, std::min(chunk_size, size - offset), {}});
    return table;
}

class PosixProvider : public Provider {
public:
    explicit PosixProvider(const Config &config) : chunk_size_(config.chunk_size) {}
    const char *name() const override { return "posix"; }

    ChunkTable chunks(const std::string &name) override {
        struct stat st {};
        if (stat(name.c_str(), &st) != 0) throw_errno(errno, name);
        if (!S_ISREG(st.st_mode)) throw Error(DLI_ERR_ARG, name + ": not a regular file");
        ChunkTable table = chunked(name, st.st_size, chunk_size_);
        for (Chunk &chunk : table.chunks) chunk.hosts = {every_host};
        return table;
    }

    // Regular files directly under NAME, sorted; links are not followed.
    std::vector<std::string> list_directory(const std::string &name) override {
        DIR *dir = opendir(name.c_str());
        if (!dir) throw_errno(errno, name);
        std::string prefix = name.back() == '/' ? name : name + "/";
        std::vector<std::string> files;
        while (dirent *entry = readdir(dir)) {
            std::string path = prefix + entry->d_name;
            struct stat st {};
            bool regular = entry->d_type == DT_REG ||
                           (entry->d_type == DT_UNKNOWN && lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode));
            if (regular) files.push_back(path);
        }
        closedir(dir);
        std::sort(files.begin(), files.end());
        return files;
    }

private:
    int64_t chunk_size_;
};

}  // namespace

PosixHolding posix_holding(const std::string &name) {
    PosixHolding holding;
    FileDescriptor fd(open(name.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    struct stat st {};
    if (fd.get() < 0 || fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return holding;
    holding.exists = true;
    holding.size = st.st_size;
    struct statfs fs {};
    holding.node_local = fstatfs(fd.get(), &fs) == 0 && !shared_file_system(fs.f_type);
    if (holding.node_local) holding.ranges = data_ranges(fd.get(), holding.size);
    return holding;
}

ChunkTable combine_posix_holdings(const std::string &name, const Config &config,
                                  const std::vector<std::string> &hosts,
                                  const std::vector<PosixHolding> &holdings) {
    int64_t size = -1;
    bool any_local = false;
    for (const PosixHolding &holding : holdings)
        if (holding.exists) {
            size = std::max(size, holding.size);
            any_local = any_local || holding.node_local;
        }
    if (size < 0) throw Error(DLI_ERR_NOENT, name + ": no host sees this file");
    ChunkTable table = chunked(name, size, config.chunk_size);
    for (Chunk &chunk : table.chunks) {
        if (!any_local) {
            chunk.hosts = {every_host};  // only shared copies: no other information
            continue;
        }
        for (size_t h = 0; h < holdings.size(); ++h)
            if (holdings[h].exists && holdings[h].node_local &&
                covers(holdings[h].ranges, chunk.offset, chunk.offset + chunk.length))
                chunk.hosts.push_back(hosts[h]);
    }
    return table;
}

std::vector<char> encode_holding(const PosixHolding &holding) {
    std::vector<int64_t> words = {holding.exists, holding.node_local, holding.size,
                                  static_cast<int64_t>(holding.ranges.size())};
    for (const auto &range : holding.ranges) {
        words.push_back(range.first);
        words.push_back(range.second);
    }
    std::vector<char> out(words.size() * sizeof(int64_t));
    std::memcpy(out.data(), words.data(), out.size());
    return out;
}

PosixHolding decode_holding(const char *data, size_t size) {
    auto bad = [] { return Error(DLI_ERR_PROTOCOL, "a rank's report of its local copy is malformed"); };
    if (size % sizeof(int64_t) != 0 || size < 4 * sizeof(int64_t)) throw bad();
    std::vector<int64_t> words(size / sizeof(int64_t));
    std::memcpy(words.data(), data, size);
    PosixHolding holding;
    if (words[0] < 0 || words[0] > 1 || words[1] < 0 || words[1] > 1 || words[2] < 0) throw bad();
    holding.exists = words[0];
    holding.node_local = words[1];
    holding.size = words[2];
    if (words[3] < 0 || static_cast<uint64_t>(words[3]) != (words.size() - 4) / 2 || words.size() % 2) throw bad();
    int64_t last = 0;
    for (size_t i = 4; i < words.size(); i += 2) {
        if (words[i] < last || words[i + 1] <= words[i] || words[i + 1] > holding.size) throw bad();
        holding.ranges.emplace_back(words[i], words[i + 1]);
        last = words[i + 1];
    }
    return holding;
}

std::unique_ptr<Provider> make_posix_provider(const Config &config) {
    return std::make_unique<PosixProvider>(config);
}

}  // namespace dli
