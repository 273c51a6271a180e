// static_map.cpp - the static provider: chunk tables read from a map file (DLI_map.5),
// for storage that libdli cannot ask itself. The parsed map is kept until the file
// changes (its device, inode, size or modification time), since static_map_lists is
// asked about every name.
#include <sys/stat.h>

#include <cerrno>
#include <fstream>
#include <mutex>
#include <sstream>

#include "error.h"
#include "providers/map_file.h"
#include "providers/provider.h"

namespace dli {
namespace {

using Map = std::map<std::string, ChunkTable>;

struct Identity {
    dev_t device = 0;
    ino_t inode = 0;
    off_t size = -1;
    timespec modified{};
    bool operator==(const Identity &o) const {
        return device == o.device && inode == o.inode && size == o.size &&
               modified.tv_sec == o.modified.tv_sec && modified.tv_nsec == o.modified.tv_nsec;
    }
};

// The map in PATH, parsed at most once per version of the file.
std::shared_ptr<const Map> load_map(const std::string &path) {
    static std::mutex mutex;
    static std::map<std::string, std::pair<Identity, std::shared_ptr<const Map>>> cache;
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) throw_errno(errno, "map file " + path);
    if (!S_ISREG(st.st_mode)) throw Error(DLI_ERR_MAP, "map file " + path + " is not a regular file");
    Identity now{st.st_dev, st.st_ino, st.st_size, st.st_mtim};
    std::lock_guard<std::mutex> hold(mutex);
    auto found = cache.find(path);
    if (found != cache.end() && found->second.first == now) return found->second.second;
    std::ifstream in(path, std::ios::binary);
    if (!in) throw_errno(errno, "map file " + path);
    std::ostringstream text;
    text << in.rdbuf();
    auto map = std::make_shared<const Map>(parse_map(text.str(), path));
    cache[path] = {now, map};
    return map;
}

std::string without_trailing_slashes(std::string name) {
    while (name.size() > 1 && name.back() == '/') name.pop_back();
    return name;
}

class StaticProvider : public Provider {
public:
    explicit StaticProvider(const Config &config) : map_(load_map(config.map_file)), source_(config.map_file) {}
    const char *name() const override { return "static"; }

    ChunkTable chunks(const std::string &name) override {
        auto found = map_->find(name);
        if (found == map_->end()) throw Error(DLI_ERR_NOENT, name + ": not in map file " + source_);
        return found->second;
    }

    // The names in the map directly under NAME (sorted: the map is ordered by name).
    std::vector<std::string> list_directory(const std::string &name) override {
        std::string prefix = without_trailing_slashes(name);
        prefix += prefix == "/" ? "" : "/";
        std::vector<std::string> names;
        for (const auto &entry : *map_) {
            const std::string &file = entry.first;
            if (file.size() > prefix.size() && file.compare(0, prefix.size(), prefix) == 0 &&
                file.find('/', prefix.size()) == std::string::npos)
                names.push_back(file);
        }
        if (names.empty()) throw Error(DLI_ERR_NOENT, name + ": no file under it in map file " + source_);
        return names;
    }

private:
    std::shared_ptr<const Map> map_;
    std::string source_;
};

}  // namespace

bool static_map_lists(const Config &config, const std::string &name) {
    if (config.map_file.empty()) return false;
    std::shared_ptr<const Map> map = load_map(config.map_file);
    if (map->count(name)) return true;
    // A directory whose files the map lists is the map's too (DLI_map_Dprocess_Dchunks).
    std::string prefix = without_trailing_slashes(name);
    prefix += prefix == "/" ? "" : "/";
    auto next = map->lower_bound(prefix);
    return next != map->end() && next->first.compare(0, prefix.size(), prefix) == 0;
}

std::unique_ptr<Provider> make_static_provider(const Config &config) {
    return std::make_unique<StaticProvider>(config);
}

}  // namespace dli
