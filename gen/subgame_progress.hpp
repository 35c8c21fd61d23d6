// Progress from inside the solvers: the fraction of a pair's positions in finished subgames, and
// notes from a large subgame under way. A kings-only pair is one subgame, which runs for hours at
// 7 pieces and would show no progress otherwise.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>

namespace dtb {

// Called now and then with the fraction (0..1) of the pair's positions in finished subgames and a
// note on a large subgame under way ("" if there is none): one call at a time, from any thread.
using ProgressCallback = std::function<void(double fraction, const std::string& note)>;

// What a subgame under way may report. Thread-safe; passes a note on to the
// ProgressCallback at most once a second, skipping it while another thread reports.
class SubgameProgress {
public:
    SubgameProgress(const ProgressCallback& callback, const std::atomic<std::uint64_t>& done, double total)
        : callback_(callback), done_(done), total_(total) {}

    // make_note() builds the note only when it is passed on.
    template <typename MakeNote>
    void note(MakeNote&& make_note) const {
        if (!callback_) return;
        const std::unique_lock lock(mutex_, std::try_to_lock);
        if (!lock.owns_lock()) return;
        const auto now = std::chrono::steady_clock::now();
        if (now - last_ < std::chrono::seconds(1)) return;
        last_ = now;
        callback_(fraction(), make_note());
    }

    // The fraction done after a level, with no note.
    void level_done() const {
        if (!callback_) return;
        const std::lock_guard lock(mutex_);
        callback_(fraction(), std::string());
    }

private:
    double fraction() const { return static_cast<double>(done_.load(std::memory_order_relaxed)) / total_; }

    const ProgressCallback& callback_;
    const std::atomic<std::uint64_t>& done_;
    double total_;
    mutable std::mutex mutex_;
    mutable std::chrono::steady_clock::time_point last_{};
};

// Notes how far the first pass over a subgame has come (only a large subgame runs long enough to
// show it): call visited(k) for every king placement k of each block.
class FirstPassNotes {
public:
    FirstPassNotes(const SubgameProgress& progress, std::uint64_t subgame_size)
        : progress_(progress), size_(subgame_size) {}

    void visited(std::uint64_t k) {
        if ((k & (kEvery - 1)) != kEvery - 1) return;
        const std::uint64_t n = visited_.fetch_add(kEvery, std::memory_order_relaxed) + kEvery;
        progress_.note([&] {
            char buf[96];
            std::snprintf(buf, sizeof buf, "subgame of %llu positions: first pass %.0f%%",
                          static_cast<unsigned long long>(size_), 100.0 * static_cast<double>(n) / static_cast<double>(size_));
            return std::string(buf);
        });
    }

private:
    static constexpr std::uint64_t kEvery = 1 << 16;
    const SubgameProgress& progress_;
    std::uint64_t size_;
    std::atomic<std::uint64_t> visited_{0};
};

// The note of a subgame's propagation: "subgame of N positions: <step> <number>, <count> <what>".
inline std::string round_note(std::uint64_t subgame_size, const char* step, std::uint64_t number,
                              std::uint64_t count, const char* what) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "subgame of %llu positions: %s %llu, %llu %s",
                  static_cast<unsigned long long>(subgame_size), step, static_cast<unsigned long long>(number),
                  static_cast<unsigned long long>(count), what);
    return buf;
}

}  // namespace dtb
