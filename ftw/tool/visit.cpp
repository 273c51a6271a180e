// visit.cpp - one entry: report its error, test it, record it.
#include "visit.h"

#include "filter.h"
#include "messages.h"
#include "paths.h"

#include <algorithm>

namespace pftw_tool {

Visitor::Visitor(const Options &options, timespec start, int thread_slots)
    : selection_(options.selection), output_(options.output), du_(options.du),
      stat_(options.stat()), start_(start), tallies_(size_t(std::max(thread_slots, 1))) {}

int Visitor::visit(const PFTW_Entry *entry, void *extra) {
    auto *self = static_cast<Visitor *>(extra);
    const int thread = entry->thread;
    if (thread >= 0 && size_t(thread) < self->tallies_.size()) {
        self->on_entry(*entry, self->tallies_[size_t(thread)]);
    } else {
        std::lock_guard<std::mutex> hold(self->spare_lock_);
        self->spare_highest_thread_ = std::max(self->spare_highest_thread_, thread);
        self->on_entry(*entry, self->spare_);
    }
    return PFTW_CONTINUE;
}

void Visitor::on_entry(const PFTW_Entry &entry, ThreadTally &tally) {
    tally.visited = true;
    if (entry.error) {
        std::string path;
        append_find_path(path, root_, entry);
        write_stderr_line(entry_error_line(path, entry.error));
    }
    // With stat on, no stat means it failed: find neither tests nor prints such an
    // entry (it only reports the error).
    const bool have_stat = entry.st != nullptr;
    if (stat_ && !have_stat)
        return;
    if (!entry_selected(selection_, entry, start_))
        return;
    ++tally.matched;
    // --du sums the selected entries: with no selection, all of them (du -s -b).
    if (du_ && have_stat && (entry.depth > 0 || entry.type != PFTW_TYPE_DIR)) {
        // A directory root is the sum of its children, not a child; another root
        // stands for itself (child "").
        tally.du.add(top_level_child(root_, entry), uint64_t(std::max<off_t>(entry.st->st_size, 0)));
    }
    if (output_ == OutputMode::print || output_ == OutputMode::print0) {
        append_find_path(tally.paths, root_, entry);
        tally.paths.push_back(output_ == OutputMode::print ? '\n' : '\0');
    }
}

void Visitor::begin_walk(const std::string &root) {
    root_ = root;
    for (ThreadTally &tally : tallies_) {
        tally.paths.clear();
        tally.paths.shrink_to_fit();  // the last walk may have printed millions of paths
        tally.du.clear();
    }
    spare_.paths.clear();
    spare_.du.clear();
}

std::vector<std::string_view> Visitor::path_pieces() const {
    std::vector<std::string_view> pieces;
    for (const ThreadTally &tally : tallies_)
        pieces.emplace_back(tally.paths);
    pieces.emplace_back(spare_.paths);
    return pieces;
}

std::string Visitor::du_records() const {
    std::string records;
    for (const ThreadTally &tally : tallies_)
        tally.du.serialize(records);
    spare_.du.serialize(records);
    return records;
}

uint64_t Visitor::matched() const {
    uint64_t total = spare_.matched;
    for (const ThreadTally &tally : tallies_)
        total += tally.matched;
    return total;
}

int Visitor::threads_seen() const {
    int seen = spare_highest_thread_ + 1;
    for (size_t i = 0; i < tallies_.size(); ++i)
        if (tallies_[i].visited)
            seen = std::max(seen, int(i) + 1);
    return seen;
}

}  // namespace pftw_tool
