#include "gen/progress.hpp"

#include <cstdio>
#include <ostream>

namespace dtb {
namespace {

std::string format_duration(double seconds) {
    const long s = static_cast<long>(seconds + 0.5);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
    return buf;
}

}  // namespace

ProgressLine::ProgressLine(std::ostream& out, bool terminal) : out_(out), terminal_(terminal) {}

void ProgressLine::update(const std::string& label, double fraction, const std::string& note) {
    const auto now = Clock::now();
    if (label != label_) {
        label_ = label;
        started_ = now;
        last_print_ = terminal_ ? Clock::time_point{} : now;  // plain lines only for long items
    }
    const double interval = terminal_ ? 0.2 : 10.0;
    if (std::chrono::duration<double>(now - last_print_).count() < interval && fraction < 1.0) return;
    last_print_ = now;
    const double elapsed = std::chrono::duration<double>(now - started_).count();
    const std::string eta = fraction > 0.001 ? format_duration(elapsed * (1 - fraction) / fraction) : "?";
    char buf[384];
    std::snprintf(buf, sizeof buf, "%s %5.1f%% ETA %s%s%s%s", label.c_str(), 100.0 * fraction, eta.c_str(),
                  note.empty() ? "" : " (", note.c_str(), note.empty() ? "" : ")");
    if (terminal_) {
        out_ << '\r' << buf << "\033[K" << std::flush;
        open_line_ = true;
    } else {
        out_ << buf << '\n' << std::flush;
    }
}

void ProgressLine::finish() {
    if (open_line_) out_ << "\r\033[K" << std::flush;
    open_line_ = false;
    label_.clear();
}

}  // namespace dtb
