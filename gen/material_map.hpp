// Entries of finished materials, found by material without a lock. Adding is not thread-safe:
// the generator adds between parallel phases.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "index/material.hpp"

namespace dtb {

template <typename Entry>
class MaterialMap {
public:
    MaterialMap() : slots_(std::size_t{1} << 16) {}

    const Entry* find(const Material& m) const { return slots_[key(m)].get(); }
    Entry* find(const Material& m) { return slots_[key(m)].get(); }
    // The entry of m; std::logic_error "<who>: material M is needed but not built" if there is none.
    const Entry& needed(const Material& m, const char* who) const {
        const Entry* e = find(m);
        if (!e) throw std::logic_error(std::string(who) + ": material " + m.name() + " is needed but not built");
        return *e;
    }
    void put(const Material& m, std::unique_ptr<Entry> entry) { slots_[key(m)] = std::move(entry); }
    void erase(const Material& m) { slots_[key(m)].reset(); }

private:
    // Four nibbles: up to 15 men or kings of each kind, far beyond what can be built.
    static std::size_t key(const Material& m) {
        constexpr int kMax = 15;
        if (m.white_men > kMax || m.white_kings > kMax || m.black_men > kMax || m.black_kings > kMax)
            throw std::out_of_range("material " + m.name() + " is too large for dtb gen");
        return static_cast<std::size_t>(m.white_men | m.white_kings << 4 | m.black_men << 8 | m.black_kings << 12);
    }

    std::vector<std::unique_ptr<Entry>> slots_;
};

}  // namespace dtb
