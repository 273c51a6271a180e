// termination.h - Dijkstra's token ring, with the colouring rules of the paper
// ("On distributed file tree walk of parallel file systems", section IV-A):
//  - every rank starts white; rank 0, when idle, sends a white token to rank 1;
//  - a rank that sends work to a rank with a lesser number turns black;
//  - an idle rank forwards the token to the next rank: blackened if the rank is
//    black, after which the rank turns white; a white rank forwards it unchanged;
//  - rank 0 detects termination when a white token comes back to it while it is idle,
//    and otherwise starts another round.
// "Idle" here also means no work request of the rank is awaiting its reply, since
// work travels only in replies: a rank holds the token until the replies are in.
#ifndef PFTW_TERMINATION_H
#define PFTW_TERMINATION_H

#include <cstdint>

namespace pftw {

enum class Color : int { white = 0, black = 1 };

class Termination {
public:
    Termination(int rank, int size) : rank_(rank), size_(size) {}

    void sent_work_to(int peer)
    {
        if (peer < rank_)
            black_ = true;
    }
    void token_arrived(Color color)
    {
        holding_ = true;
        token_ = color;
    }

    struct Step {
        bool send = false;          // send a token of `color` to `to`
        Color color = Color::white;
        int to = 0;
        bool terminated = false;    // rank 0: the walk is over
    };
    // What an idle rank does about the token now.
    Step on_idle();

    uint64_t rounds() const { return rounds_; }

private:
    int rank_, size_;
    bool black_ = false;
    bool holding_ = false;
    bool started_ = false;  // rank 0: a round is under way
    Color token_ = Color::white;
    uint64_t rounds_ = 0;   // rank 0: rounds started; others: tokens forwarded
};

}  // namespace pftw
#endif
