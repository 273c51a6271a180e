// ceph_mount_cache.cpp - recent libcephfs mounts, reused by the next call (see the header).
#include "providers/ceph_mount_cache.h"

#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>

namespace dli {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto idle_limit = std::chrono::seconds(2);

struct Recent {
    std::shared_ptr<CephMount> mount;
    Clock::time_point last_used;
};

struct Cache {
    std::mutex mutex;
    std::map<std::string, Recent> mounts;  // by everything that shapes a mount
    bool unmount_at_exit = false;
};

// Never destroyed: the exit handler below empties it while libcephfs still works. A
// static object would be destroyed after libcephfs' own statics made during the first
// mount, which the unmount needs.
Cache &cache() {
    static Cache *the_cache = new Cache;
    return *the_cache;
}

void unmount_all() {
    std::map<std::string, Recent> leaving;
    {
        std::lock_guard<std::mutex> hold(cache().mutex);
        leaving.swap(cache().mounts);
    }
}  // the mounts are unmounted here, outside the lock

std::string key_of(const Config &config, const std::string &fs_name) {
    const char *arguments = std::getenv("CEPH_ARGS");
    std::string key;
    for (const std::string &part : {config.ceph_conf, config.ceph_id, fs_name, std::to_string(config.timeout_ms),
                                    std::string(arguments ? arguments : "")})
        key += std::to_string(part.size()) + ":" + part;
    return key;
}

}  // namespace

std::shared_ptr<CephMount> shared_ceph_mount(const Config &config, const std::string &fs_name) {
    std::string key = key_of(config, fs_name);
    std::shared_ptr<CephMount> stale;  // unmounted after the lock is released
    Cache &recent = cache();
    std::lock_guard<std::mutex> hold(recent.mutex);
    Clock::time_point now = Clock::now();
    auto found = recent.mounts.find(key);
    if (found != recent.mounts.end()) {
        if (now - found->second.last_used < idle_limit) {
            found->second.last_used = now;
            return found->second.mount;
        }
        stale = std::move(found->second.mount);
        recent.mounts.erase(found);
    }
    auto mount = std::make_shared<CephMount>(config, fs_name);
    // Registered after the first mount, so it runs before the exit-time destructors of
    // whatever that mount set up.
    if (!recent.unmount_at_exit) recent.unmount_at_exit = std::atexit(unmount_all) == 0;
    recent.mounts[key] = {mount, now};
    return mount;
}

}  // namespace dli
