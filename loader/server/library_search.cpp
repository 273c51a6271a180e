#include "library_search.h"

namespace piox_load {

namespace {

// $ORIGIN and ${ORIGIN} replaced; false when another $ token is left (not replayed).
bool expand_origin(std::string& dir, const std::string& origin)
{
    for (const char* token : {"${ORIGIN}", "$ORIGIN"}) {
        const std::string t = token;
        for (size_t at; (at = dir.find(t)) != std::string::npos;)
            dir.replace(at, t.size(), origin);
    }
    return dir.find('$') == std::string::npos;
}

// One search list (RPATH, LD_LIBRARY_PATH, RUNPATH, the system directories) as the
// loader walks it. Ends at the first directory it cannot replay.
class ListWalk {
  public:
    ListWalk(const std::string& name, const SystemSearch& system, const NodeView& view,
             SearchOutcome& outcome)
        : name_(name), system_(system), view_(view), outcome_(outcome)
    {
    }

    // True when the outcome is decided (found, needs an item, or cannot go on).
    bool search(const std::vector<std::string>& dirs, const std::string& origin)
    {
        for (std::string dir : dirs) {
            if (!expand_origin(dir, origin) || dir.empty() || dir[0] != '/')
                return stop_here();
            while (dir.size() > 1 && dir.back() == '/')
                dir.pop_back();
            for (const std::string& sub : system_.subdirectories)
                if (try_directory(join(dir, sub)))
                    return true;
            if (try_directory(dir))
                return true;
        }
        return false;
    }

    // A path from ld.so.cache: opened as it is, no subdirectories.
    bool try_path(const std::string& path)
    {
        Resolution r = view_.resolve(path);
        if (r.state == Resolution::kNeed)
            return need(r.path);
        if (r.state == Resolution::kDone && r.item->is_regular() && is_loadable_object(r.item->bytes)) {
            outcome_.state = SearchOutcome::kFound;
            outcome_.path = path;
            return true;
        }
        return false;
    }

  private:
    bool try_directory(const std::string& dir)
    {
        outcome_.searched.push_back(dir);
        Resolution r = view_.resolve(dir);
        if (r.state == Resolution::kNeed)
            return need(r.path);
        if (r.state != Resolution::kDone || !r.item->is_directory() || r.item->names.count(name_) == 0)
            return false;  // a miss, answered from the directory's listing
        return try_path(join(dir, name_));
    }

    bool need(const std::string& path)
    {
        outcome_.state = SearchOutcome::kNeed;
        outcome_.path = path;
        return true;
    }

    // The loader searches on by itself from this directory: what was searched so far
    // may still be skipped, the rest not.
    bool stop_here()
    {
        outcome_.state = SearchOutcome::kMissing;
        return true;
    }

    const std::string& name_;
    const SystemSearch& system_;
    const NodeView& view_;
    SearchOutcome& outcome_;
};

}  // namespace

const DynamicInfo* LibrarySearch::dynamic_info(const std::string& path, const NodeView& view,
                                               std::string& need)
{
    Resolution r = view.resolve(path);
    if (r.state == Resolution::kNeed) {
        need = r.path;
        return nullptr;
    }
    auto cached = infos_.find(r.path);
    if (cached != infos_.end())
        return &cached->second;
    DynamicInfo info;
    if (r.state == Resolution::kDone && r.item->is_regular())
        info = read_dynamic_info(r.item->bytes);
    return &infos_.emplace(r.path, std::move(info)).first->second;
}

SearchOutcome LibrarySearch::find(const std::string& name, const std::string& requester,
                                  const std::vector<std::string>& ancestors,
                                  const ProcessContext& process, const NodeView& view)
{
    SearchOutcome outcome;
    const std::string& object = requester.empty() ? process.executable : requester;
    std::string need;
    const DynamicInfo* requester_info = dynamic_info(object, view, need);
    const DynamicInfo* executable_info =
        requester_info ? dynamic_info(process.executable, view, need) : nullptr;
    std::vector<const DynamicInfo*> ancestor_infos;
    for (const std::string& ancestor : ancestors) {
        if (executable_info == nullptr)
            break;
        const DynamicInfo* info = dynamic_info(ancestor, view, need);
        if (info == nullptr)
            executable_info = nullptr;
        ancestor_infos.push_back(info);
    }
    if (executable_info == nullptr) {
        outcome.path = need;
        return outcome;
    }
    const std::string origin = parent_of(object);
    const std::string executable_origin = parent_of(process.executable);
    ListWalk walk(name, system_, view, outcome);
    auto searched = [&] {
        if (!requester_info->has_runpath) {
            if (walk.search(requester_info->rpath, origin))
                return true;
            for (size_t i = 0; i < ancestors.size(); i++)
                if (walk.search(ancestor_infos[i]->rpath, parent_of(ancestors[i])))
                    return true;
            if (object != process.executable && !executable_info->has_runpath &&
                walk.search(executable_info->rpath, executable_origin))
                return true;
        }
        if (walk.search(process.library_path, executable_origin) ||
            walk.search(requester_info->runpath, origin))
            return true;
        if (requester_info->nodeflib)
            return false;
        auto cached = system_.cache.find(name);
        if (cached != system_.cache.end() && walk.try_path(cached->second))
            return true;
        return walk.search(system_.system_directories, origin);
    }();
    if (!searched)
        outcome.state = SearchOutcome::kMissing;
    return outcome;
}

}  // namespace piox_load
