#include "server.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <sys/stat.h>
#include <time.h>

#include "protocol.h"

namespace piox_load {

namespace {

bool exists(const std::string& path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0;
}

int64_t monotonic_ms()
{
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return int64_t(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

}  // namespace

Server::Server(const ServerOptions& options, const std::string& node, SystemSearch system,
               MPI_Comm world)
    : options_(options),
      node_directory_(options.directory + "/" + node),
      view_(node_directory_ + "/root"),
      search_(std::move(system)),
      port_(node_directory_ + "/sock"),
      distribution_(world, options.readers, options.push)
{
    int rank = 0;
    MPI_Comm_rank(world, &rank);
    rank_zero_ = rank == 0;
}

bool Server::reply_found(const Request& request, const std::string& path, bool follow, bool strip)
{
    if (view_.materialize(path, follow, strip) != 0) {
        port_.reply(request.connection, request.op, kRefused);
        return true;
    }
    port_.reply(request.connection, request.op, kFound, {view_.mirror_root() + path});
    return true;
}

bool Server::answer_resolve(const Request& request, const ProcessContext& process)
{
    const std::vector<std::string> ancestors(request.strings.begin() + 2, request.strings.end());
    SearchOutcome outcome = search_.find(request.strings[0], request.strings[1], ancestors, process, view_);
    if (outcome.state == SearchOutcome::kNeed) {
        distribution_.want(outcome.path);
        return false;
    }
    if (outcome.state == SearchOutcome::kFound)
        return reply_found(request, outcome.path, true, options_.strip);
    port_.reply(request.connection, request.op, kMissing, outcome.searched);
    return true;
}

// A path the loader opens as it is: served when it is a shared object the loader
// would map; anything else goes back to the loader, whose message is then its own.
bool Server::answer_open(const Request& request)
{
    const std::string& path = request.strings[0];
    Resolution r = view_.resolve(path);
    if (r.state == Resolution::kNeed) {
        distribution_.want(r.path);
        return false;
    }
    if (r.state == Resolution::kDone && r.item->is_regular() && is_loadable_object(r.item->bytes))
        return reply_found(request, path, true, options_.strip);
    port_.reply(request.connection, request.op, kMissing);
    return true;
}

// For the application's own calls: resolves `path`, asks for an item it lacks
// (kWaiting), answers a path that does not exist (kAnswered), or leaves the rest to
// the caller in `r`.
Server::Step Server::resolve_for_application(const Request& request, const std::string& path,
                                             bool follow, Resolution& r)
{
    r = view_.resolve(path, follow);
    if (r.state == Resolution::kNeed) {
        distribution_.want(r.path);
        return Step::kWaiting;
    }
    if (r.state == Resolution::kMissing && r.error == ENOENT) {
        port_.reply(request.connection, request.op, kMissing);
        return Step::kAnswered;
    }
    return Step::kResolved;
}

// A path the application opens or stats itself: whatever it is, mirrored.
bool Server::answer_map(const Request& request)
{
    const std::string& path = request.strings[0];
    const bool follow = request.strings[1] == "1";
    Resolution r;
    if (Step step = resolve_for_application(request, path, follow, r); step != Step::kResolved)
        return step == Step::kAnswered;
    // A program with file capabilities is the process's to read from the file system:
    // run from the copy, it would lose them (the client runs what it cannot map as is).
    if (r.state == Resolution::kDone && !r.item->capabilities &&
        (r.item->is_regular() || r.item->is_directory() || r.item->is_symlink()))
        return reply_found(request, path, follow, false);  // data, not only what a loader maps
    port_.reply(request.connection, request.op, kRefused);
    return true;
}

// A directory the application lists: a directory of its names, made once (a
// listing never changes: a file system is served as it was first read).
bool Server::answer_list(const Request& request)
{
    Resolution r;
    if (Step step = resolve_for_application(request, request.strings[0], true, r); step != Step::kResolved)
        return step == Step::kAnswered;
    if (r.state != Resolution::kDone || !r.item->is_directory()) {
        port_.reply(request.connection, request.op, kRefused);
        return true;
    }
    auto made = listings_.find(r.path);
    if (made == listings_.end()) {
        const std::string listings = node_directory_ + "/listings";
        std::string where = listings + "/" + std::to_string(listings_.size());
        if ((listings_.empty() && mkdir(listings.c_str(), 0700) != 0 && errno != EEXIST) ||
            view_.make_listing(where, *r.item) != 0) {
            port_.reply(request.connection, request.op, kRefused);
            return true;
        }
        made = listings_.emplace(r.path, where).first;
    }
    port_.reply(request.connection, request.op, kFound, {made->second});
    return true;
}

bool Server::answer(const Request& request)
{
    auto process = processes_.find(request.connection);
    if (request.op == kHello && request.strings.size() == 2) {
        // unset: no directories (an empty entry would mean "."); glibc splits at ':' and ';'
        const std::string& library_path = request.strings[1];
        processes_[request.connection] = {
            request.strings[0],
            library_path.empty() ? std::vector<std::string>() : split_path_list(library_path, ":;")};
        port_.reply(request.connection, request.op, kFound);
        return true;
    }
    bool absolute = !request.strings.empty() && !request.strings[0].empty();
    if (process != processes_.end() && request.op == kResolve && request.strings.size() >= 2 &&
        absolute && request.strings[0].find('/') == std::string::npos)
        return answer_resolve(request, process->second);
    if (process != processes_.end() && request.op == kOpen && request.strings.size() == 1 &&
        absolute && request.strings[0][0] == '/')
        return answer_open(request);
    // kMap needs no hello: it names its file whole (the exec wrappers' connections
    // of one request each, protocol.h).
    if (request.op == kMap && request.strings.size() == 2 && absolute && request.strings[0][0] == '/')
        return answer_map(request);
    if (process != processes_.end() && request.op == kList && request.strings.size() == 1 &&
        absolute && request.strings[0][0] == '/')
        return answer_list(request);
    port_.reply(request.connection, request.op, kRefused);
    return true;
}

// The paper's bulk preloading: a reader reads every path of the list (and the
// directories and symlinks on its way), and pushes it, before the job starts.
void Server::preload()
{
    std::ifstream list(options_.preload);
    if (!list)
        fprintf(stderr, "piox-loadd: cannot read the preload list %s\n", options_.preload.c_str());
    for (std::string path; std::getline(list, path);) {
        if (path.empty() || path[0] == '#')
            continue;
        Resolution r = view_.resolve(path);
        for (int steps = 0; r.state == Resolution::kNeed && steps < 4096; steps++) {
            distribution_.want(r.path);  // a reader reads at once
            for (Item& item : distribution_.progress())
                view_.add(std::move(item));
            r = view_.resolve(path);
        }
        if (r.state != Resolution::kDone)
            fprintf(stderr, "piox-loadd: preload: %s: %s\n", path.c_str(),
                    r.state == Resolution::kMissing ? strerror(r.error) : "not absolute");
    }
}

// How long a round waits for the node's processes. Short (1-2 ms) while there is
// work, since MPI moves the servers' messages only while a server calls it: items are
// awaited, this server reads for others, or anything happened in the last
// kQuietBeforeIdleMs. After that the server is idle, beside a job that has started,
// and waits kIdleWaitMs: 3% of a core per node before, every 1-2 ms, for as long as
// the job ran. What it costs is at most kIdleWaitMs more for the first item a node's
// processes ask for (or a broadcast reaches it) after a quiet spell; a process's
// request ends the wait at once.
int Server::wait_ms() const
{
    constexpr int kIdleWaitMs = 20;
    constexpr int64_t kQuietBeforeIdleMs = 1000;
    if (distribution_.has_arrivals())  // read while answering: take them at once
        return 0;
    if (monotonic_ms() - last_busy_ms_ >= kQuietBeforeIdleMs)
        return kIdleWaitMs;
    return !waiting_.empty() || distribution_.is_reader() ? 1 : 2;
}

void Server::run()
{
    const std::string stop_file = options_.directory + "/stop";
    distribution_.start();
    if (distribution_.is_reader() && !options_.preload.empty())
        preload();
    distribution_.post_ready();
    bool announced = false;
    last_busy_ms_ = monotonic_ms();
    while (!distribution_.finished()) {
        if (!announced && distribution_.ready()) {
            announced = true;
            if (rank_zero_) {  // what the launcher waits for
                FILE* ready = fopen((options_.directory + "/ready").c_str(), "w");
                if (ready != nullptr)
                    fclose(ready);
            }
        }
        if (rank_zero_ && exists(stop_file))
            distribution_.request_stop();
        if (distribution_.stop_requested())
            port_.stop_listening();
        std::vector<int> closed;
        std::vector<Request> requests = port_.wait(wait_ms(), closed);
        std::vector<Item> items = distribution_.progress();
        bool quiet = requests.empty() && items.empty() && closed.empty() && waiting_.empty() &&
                     !distribution_.sending();
        if (!quiet)
            last_busy_ms_ = monotonic_ms();
        for (Request& request : requests)
            waiting_.push_back(std::move(request));
        for (Item& item : items)
            view_.add(std::move(item));
        std::deque<Request> still;
        for (Request& request : waiting_) {
            // A closed connection's number may come back for another process: what it
            // asked is dropped at once.
            bool gone = std::find(closed.begin(), closed.end(), request.connection) != closed.end();
            if (!gone && !answer(request))
                still.push_back(std::move(request));
        }
        waiting_.swap(still);
        for (int connection : closed)
            processes_.erase(connection);
    }
}

}  // namespace piox_load
