// termination.cpp - the token rules of termination.h.
#include "termination.h"

namespace pftw {

Termination::Step Termination::on_idle()
{
    Step step;
    if (rank_ == 0) {
        if (started_ && !holding_)
            return step;  // the token is still on its way round
        if (holding_ && token_ == Color::white && !black_) {
            step.terminated = true;
            return step;
        }
        // The first round, or the token came back black: start another.
        holding_ = false;
        started_ = true;
        black_ = false;
        rounds_++;
        step.send = true;
        step.color = Color::white;
        step.to = 1 % size_;
        return step;
    }
    if (!holding_)
        return step;
    step.send = true;
    step.color = black_ ? Color::black : token_;
    step.to = (rank_ + 1) % size_;
    black_ = false;
    holding_ = false;
    rounds_++;
    return step;
}

}  // namespace pftw
