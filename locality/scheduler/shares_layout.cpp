// shares_layout.cpp - locality remapping (DLI_Sched_remap): from the static assignment of
// chunks to ranks to the order in which a program that reads equal shares by rank offset
// is shown the file's chunks.
//
// The program reads its share as a byte range, which rarely falls on chunk boundaries,
// and the scheduler's bytes per rank differ from the shares by up to a chunk. So rather
// than lay each rank's chunks end to end, the layout fills each share in turn, placing
// at each step the chunk worth most there: a rank's own assigned chunks first, a later
// rank's where it is worth more, and chunks left over pass on to the next share.
//
// A chunk's worth is the locality it keeps within reach: the bytes it makes local where
// it lands (in every share it covers, when it straddles share ends), plus the change in
// what the nodes can still make local, the sum over nodes of the lesser of the bytes
// their ranks have left to read and the bytes of unplaced chunks they hold. Spending a
// chunk of a node that holds less than its ranks' shares anywhere but there loses that
// node bytes; covering a share with remote bytes loses its node bytes when the node had
// enough of its own. Ties go to the lowest chunk index: every rank computes the same
// layout. Each step weighs only the chunks that can matter there (those passed to the
// share, and those its node, or the next share's, holds): 10,000 chunks over 256 ranks
// lay out in about 0.1 s.
#include <algorithm>
#include <tuple>

#include "scheduler.h"

namespace dli::sched {
namespace {

class Layout {
public:
    Layout(const Problem &problem, const std::vector<int> &rank_of_chunk, const std::vector<int64_t> &share_end)
        : p_(problem), owner_(rank_of_chunk), share_end_(share_end),
          nranks_(static_cast<int>(share_end.size())), unplaced_(problem),
          need_(static_cast<size_t>(problem.nnodes), 0), seen_(static_cast<size_t>(problem.nnodes), -1),
          covered_(static_cast<size_t>(problem.nnodes), 0) {
        for (size_t c = 0; c < p_.chunk_bytes.size(); ++c) {
            if (p_.chunk_bytes[c] == 0) unplaced_.remove(static_cast<int>(c));  // appended at the end
            else if (p_.chunk_nodes[c].empty()) orphans_.push_back(static_cast<int>(c));
            longest_ = std::max(longest_, p_.chunk_bytes[c]);
        }
        for (int r = 0; r < nranks_; ++r) need_[static_cast<size_t>(node(r))] += share_end_[static_cast<size_t>(r)] - share_start(r);
        owned_.resize(share_end.size());
        for (int c : unplaced_.remaining()) owned_[static_cast<size_t>(owner_[static_cast<size_t>(c)])].push_back(c);
        for (auto &list : owned_) std::sort(list.begin(), list.end());
    }

    std::vector<int> run() {
        for (int r = 0; r < nranks_; ++r) {
            pool_.insert(pool_.end(), owned_[static_cast<size_t>(r)].begin(), owned_[static_cast<size_t>(r)].end());
            while (cursor_ < share_end_[static_cast<size_t>(r)]) {
                const int c = choose(r);
                if (c < 0) break;  // every chunk is placed
                place(c, r);
            }
        }
        while (!unplaced_.empty()) order_.push_back(take_lowest());  // never lose a chunk
        for (size_t c = 0; c < p_.chunk_bytes.size(); ++c)
            if (p_.chunk_bytes[c] == 0) order_.push_back(static_cast<int>(c));
        return order_;
    }

private:
    // (locality kept within reach, own before borrowed, bytes made local now): the
    // larger the better; then the lowest chunk index.
    using Worth = std::tuple<int64_t, bool, int64_t>;

    int node(int rank) const { return p_.rank_node[static_cast<size_t>(rank)]; }
    int64_t share_start(int rank) const { return rank == 0 ? 0 : share_end_[static_cast<size_t>(rank - 1)]; }
    bool holds(int c, int n) const {
        const std::vector<int> &nodes = p_.chunk_nodes[static_cast<size_t>(c)];
        return std::find(nodes.begin(), nodes.end(), n) != nodes.end();
    }

    // Calls cover(rank, bytes) for each share chunk c would cover from the cursor.
    template <typename Cover>
    void for_each_cover(int c, int r, Cover cover) const {
        int64_t from = cursor_;
        const int64_t end = cursor_ + p_.chunk_bytes[static_cast<size_t>(c)];
        for (int q = r; q < nranks_ && from < end; ++q) {
            const int64_t to = std::min(end, share_end_[static_cast<size_t>(q)]);
            if (to > from) cover(q, to - from);
            from = std::max(from, to);
        }
    }

    Worth worth(int c, int r) {
        int64_t local = 0;
        ++stamp_;
        touched_.clear();
        auto touch = [&](int n) {
            if (seen_[static_cast<size_t>(n)] != stamp_) {
                seen_[static_cast<size_t>(n)] = stamp_;
                covered_[static_cast<size_t>(n)] = 0;
                touched_.push_back(n);
            }
        };
        for_each_cover(c, r, [&](int q, int64_t bytes) {
            touch(node(q));
            covered_[static_cast<size_t>(node(q))] += bytes;
            if (holds(c, node(q))) local += bytes;
        });
        for (int n : p_.chunk_nodes[static_cast<size_t>(c)]) touch(n);
        int64_t reach = local;  // plus the change in sum over nodes of min(need, have)
        const int64_t length = p_.chunk_bytes[static_cast<size_t>(c)];
        for (int n : touched_) {
            const int64_t have = unplaced_.local_bytes(n), need = need_[static_cast<size_t>(n)];
            const int64_t have_after = have - (holds(c, n) ? length : 0);
            reach += std::min(need - covered_[static_cast<size_t>(n)], have_after) - std::min(need, have);
        }
        return {reach, owner_[static_cast<size_t>(c)] <= current_, local};
    }

    void consider(int c, int r, int *best, Worth *best_worth) {
        if (!unplaced_.contains(c)) return;
        const Worth w = worth(c, r);
        if (*best < 0 || w > *best_worth || (w == *best_worth && c < *best)) *best = c, *best_worth = w;
    }

    // The chunk to place next in rank r's share: the best of the chunks passed to it (its
    // own and earlier ranks' left over), the chunks its node holds, where a chunk may
    // straddle into the next share the chunks the next rank's node holds, and fillers;
    // when none is left, the lowest unplaced chunk.
    int choose(int r) {
        current_ = r;
        int best = -1;
        Worth best_worth{};
        std::vector<int> kept;
        for (int c : pool_)
            if (unplaced_.contains(c)) kept.push_back(c), consider(c, r, &best, &best_worth);
        pool_.swap(kept);
        for (int c : unplaced_.local(node(r))) consider(c, r, &best, &best_worth);
        if (r + 1 < nranks_ && share_end_[static_cast<size_t>(r)] - cursor_ < longest_)
            for (int c : unplaced_.local(node(r + 1))) consider(c, r, &best, &best_worth);
        // Fillers that cost nothing elsewhere: a chunk of each node holding more than its
        // ranks still read, and a chunk no node holds.
        for (int n = 0; n < p_.nnodes; ++n)
            if (!unplaced_.local(n).empty() && unplaced_.local_bytes(n) > need_[static_cast<size_t>(n)])
                consider(unplaced_.local(n).front(), r, &best, &best_worth);
        while (next_orphan_ < orphans_.size() && !unplaced_.contains(orphans_[next_orphan_])) ++next_orphan_;
        if (next_orphan_ < orphans_.size()) consider(orphans_[next_orphan_], r, &best, &best_worth);
        return best >= 0 ? best : unplaced_.empty() ? -1 : unplaced_.lowest_remaining();
    }

    int take_lowest() {
        const int c = unplaced_.lowest_remaining();
        unplaced_.remove(c);
        return c;
    }

    void place(int c, int r) {
        for_each_cover(c, r, [&](int q, int64_t bytes) { need_[static_cast<size_t>(node(q))] -= bytes; });
        order_.push_back(c);
        cursor_ += p_.chunk_bytes[static_cast<size_t>(c)];
        unplaced_.remove(c);
    }

    const Problem &p_;
    const std::vector<int> &owner_;        // the scheduler's rank of each chunk
    const std::vector<int64_t> &share_end_;
    int nranks_;
    ChunkPool unplaced_;                   // and, per node, the unplaced chunks it holds
    std::vector<std::vector<int>> owned_;  // per rank, its assigned chunks, ascending
    std::vector<int> pool_;                // chunks passed to the current share
    std::vector<int> orphans_;             // chunks no node holds, ascending
    size_t next_orphan_ = 0;
    std::vector<int64_t> need_;            // per node, the bytes its ranks have left to read
    std::vector<int> seen_, touched_;      // worth()'s scratch
    std::vector<int64_t> covered_;
    int stamp_ = 0, current_ = 0;
    int64_t longest_ = 0, cursor_ = 0;
    std::vector<int> order_;
};

}  // namespace

std::vector<int64_t> rank_offset_share_ends(int64_t size, int nranks) {
    std::vector<int64_t> ends;
    for (int r = 1; r < nranks; ++r) ends.push_back(static_cast<int64_t>(r) * (size / nranks));
    ends.push_back(size);
    return ends;
}

int64_t local_bytes_in_shares(const Problem &problem, const std::vector<int> &order,
                              const std::vector<int64_t> &share_end) {
    int64_t local = 0, at = 0;
    size_t rank = 0;
    for (int c : order) {
        const int64_t end = at + problem.chunk_bytes[static_cast<size_t>(c)];
        for (int64_t from = at; from < end;) {
            while (share_end[rank] <= from) ++rank;
            const int64_t to = std::min(end, share_end[rank]);
            if (is_local(problem, c, static_cast<int>(rank))) local += to - from;
            from = to;
        }
        at = end;
    }
    return local;
}

std::vector<int> shares_layout(const Problem &problem, const std::vector<int> &rank_of_chunk,
                               const std::vector<int64_t> &share_end) {
    return Layout(problem, rank_of_chunk, share_end).run();
}

}  // namespace dli::sched
