// One node's load server: answers its node's processes (ClientPort) from the node's
// view of the shared file system (NodeView, LibrarySearch), asks its reader for
// what it lacks (Distribution), and keeps the mirror the processes load from.
// A request that needs an item the node lacks waits, and is answered again from the
// start when items arrive: answering is cheap, and never half-done.
#pragma once

#include <mpi.h>

#include <deque>
#include <string>
#include <unordered_map>

#include "client_port.h"
#include "distribution.h"
#include "library_search.h"
#include "node_view.h"

namespace piox_load {

struct ServerOptions {
    std::string directory;  // PIOX_LOAD_DIR: each node's files in <directory>/<node>
    int readers = 1;
    bool push = true;
    std::string preload;  // a file of absolute paths each reader reads before ready
    bool strip = false;   // libraries' copies keep only what the loader reads
    int simulated_nodes = 0;  // --nodes N: rank r serves node<r> (0: a real node each)
};

class Server {
  public:
    Server(const ServerOptions& options, const std::string& node, SystemSearch system, MPI_Comm world);
    int setup_error() const { return port_.error(); }
    // Serves until the job's end was asked for (the file <directory>/stop, on rank 0's node).
    void run();

  private:
    void preload();
    bool answer(const Request& request);  // false: it waits for an item
    bool answer_resolve(const Request& request, const ProcessContext& process);
    bool answer_open(const Request& request);
    enum class Step { kWaiting, kAnswered, kResolved };
    Step resolve_for_application(const Request& request, const std::string& path, bool follow,
                                 Resolution& r);
    bool answer_map(const Request& request);
    bool answer_list(const Request& request);
    // Mirrors `path` (a shared object's copy stripped when `strip`) and names the copy.
    bool reply_found(const Request& request, const std::string& path, bool follow, bool strip);

    ServerOptions options_;
    std::string node_directory_;
    NodeView view_;
    LibrarySearch search_;
    ClientPort port_;
    Distribution distribution_;
    bool rank_zero_;
    std::unordered_map<int, ProcessContext> processes_;  // by connection, from hello
    // Directories' listings made for opendir, by physical path: <node dir>/listings/<n>.
    std::unordered_map<std::string, std::string> listings_;
    std::deque<Request> waiting_;
    int64_t last_busy_ms_ = 0;  // when a round last had something to do (monotonic)
    int wait_ms() const;
};

}  // namespace piox_load
