// Progress reporting for long runs: redrawn in place on a terminal, plain lines (at most one
// every few seconds) otherwise.
#pragma once

#include <chrono>
#include <iosfwd>
#include <string>

namespace dtb {

class ProgressLine {
public:
    ProgressLine(std::ostream& out, bool terminal);
    // fraction in 0..1 of the current item; the ETA is extrapolated from the item's start. A note,
    // if any, follows in parentheses (what a long step inside the item has done).
    void update(const std::string& label, double fraction, const std::string& note = {});
    // Ends the current line (before printing anything else).
    void finish();

private:
    using Clock = std::chrono::steady_clock;
    std::ostream& out_;
    bool terminal_;
    bool open_line_ = false;
    std::string label_;
    Clock::time_point started_;
    Clock::time_point last_print_;
};

}  // namespace dtb
