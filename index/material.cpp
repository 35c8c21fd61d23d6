#include "index/material.hpp"

#include <algorithm>
#include <set>
#include <tuple>

namespace dtb {
namespace {

void append_side(std::string& out, int kings, int men) {
    out.append(static_cast<std::size_t>(kings), 'K');
    out.append(static_cast<std::size_t>(men), 'M');
}

// Reads "K...KM...M" (at least one letter); returns false on anything else.
bool read_side(std::string_view text, int& kings, int& men) {
    kings = 0;
    men = 0;
    std::size_t i = 0;
    while (i < text.size() && text[i] == 'K') ++kings, ++i;
    while (i < text.size() && text[i] == 'M') ++men, ++i;
    return i == text.size() && kings + men > 0;
}

}  // namespace

std::string Material::name() const {
    std::string out;
    append_side(out, white_kings, white_men);
    out += 'v';
    append_side(out, black_kings, black_men);
    return out;
}

std::optional<Material> parse_material(std::string_view name) {
    const auto v = name.find('v');
    if (v == std::string_view::npos) return std::nullopt;
    Material m;
    if (!read_side(name.substr(0, v), m.white_kings, m.white_men)) return std::nullopt;
    if (!read_side(name.substr(v + 1), m.black_kings, m.black_men)) return std::nullopt;
    if (m.white_pieces() > 20 || m.black_pieces() > 20) return std::nullopt;
    return m;
}

std::vector<Material> materials_in_build_order(int max_pieces, int max_per_side) {
    std::vector<Material> all;
    for (int white = 1; white <= std::min(max_per_side, max_pieces - 1); ++white)
        for (int black = 1; black <= std::min(max_per_side, max_pieces - white); ++black)
            for (int wm = 0; wm <= white; ++wm)
                for (int bm = 0; bm <= black; ++bm) all.push_back({wm, white - wm, bm, black - bm});
    // Within one (pieces, men) class no material depends on another, except a material and its
    // mirror, which are solved together; keep them adjacent by sorting on the unordered pair.
    const auto key = [](const Material& m) {
        const Material lo = std::min(m, m.mirror());
        return std::make_tuple(m.pieces(), m.men(), lo, m != lo);
    };
    std::sort(all.begin(), all.end(), [&](const Material& a, const Material& b) { return key(a) < key(b); });
    return all;
}

std::vector<Material> successor_materials(const Material& m) {
    std::set<Material> out;
    const auto add = [&](Material after) {  // `after` seen from white, who just moved
        if (after.black_pieces() > 0) out.insert(after.mirror());
    };
    if (m.white_men > 0) add({m.white_men - 1, m.white_kings + 1, m.black_men, m.black_kings});
    for (int men = 0; men <= m.black_men; ++men)
        for (int kings = 0; kings <= m.black_kings; ++kings) {
            if (men + kings == m.black_pieces()) continue;  // nothing captured
            add({m.white_men, m.white_kings, men, kings});
            if (m.white_men > 0) add({m.white_men - 1, m.white_kings + 1, men, kings});
        }
    return {out.begin(), out.end()};
}

std::vector<Material> capture_successor_materials(const Material& m) {
    std::vector<Material> out;
    for (const Material& s : successor_materials(m))
        if (s.pieces() < m.pieces()) out.push_back(s);
    return out;
}

}  // namespace dtb
