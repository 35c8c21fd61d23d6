// Material: how many men and kings each side has, with white to move.
//
// Names read like a draughts player counts pieces: white's pieces, 'v', black's pieces, kings
// first as 'K', then men as 'M'. "KMvK" is one white king and one white man against a black king;
// "MMMvMM" is three white men against two black men.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rules/position.hpp"

namespace dtb {

struct Material {
    int white_men = 0;
    int white_kings = 0;
    int black_men = 0;
    int black_kings = 0;

    constexpr int pieces() const { return white_men + white_kings + black_men + black_kings; }
    constexpr int men() const { return white_men + black_men; }
    constexpr int white_pieces() const { return white_men + white_kings; }
    constexpr int black_pieces() const { return black_men + black_kings; }
    // The same material seen from the other side (colours swapped).
    constexpr Material mirror() const { return {black_men, black_kings, white_men, white_kings}; }
    constexpr bool is_symmetric() const { return mirror() == *this; }

    std::string name() const;

    friend constexpr auto operator<=>(const Material&, const Material&) = default;
};

// Parses a name written by Material::name(); nullopt if it is not one.
std::optional<Material> parse_material(std::string_view name);

// The material of a position, counted with the side to move as white. Inline and without a flip:
// table lookups call it for every successor of every position.
inline Material material_of(const Position& pos) {
    const Bitboard mover = pos.pieces(pos.side_to_move);
    const Bitboard other = pos.pieces(opponent(pos.side_to_move));
    return {count_bits(mover & ~pos.kings), count_bits(mover & pos.kings), count_bits(other & ~pos.kings),
            count_bits(other & pos.kings)};
}

// Every material with at least one piece per side, at most `max_pieces` pieces in all and at most
// `max_per_side` per side, in a valid build order: fewer pieces first, then fewer men first (a
// capture removes a piece, a promotion turns a man into a king), a material right before its mirror.
std::vector<Material> materials_in_build_order(int max_pieces, int max_per_side = 20);

// Materials a position of `m` (white to move) can reach in one move other than m's mirror:
// promotions and captures, seen from the side to move after the move. Empty sides are left out.
std::vector<Material> successor_materials(const Material& m);

// The successor materials with fewer pieces (after a capture): all that reading m's file needs,
// since its don't-care positions are resolved by capture search.
std::vector<Material> capture_successor_materials(const Material& m);

}  // namespace dtb
