#include <gtest/gtest.h>

#include <random>
#include <set>

#include "index/position_index.hpp"
#include "rules/movegen.hpp"

namespace dtb {
namespace {

bool is_legal_for(const Position& p, const Material& m) {
    if (p.white & p.black) return false;
    if ((p.white | p.black) & ~kBoard) return false;
    if (p.kings & ~(p.white | p.black)) return false;
    if (p.men(Color::White) & kWhitePromotionRow) return false;
    if (p.men(Color::Black) & kBlackPromotionRow) return false;
    return p.side_to_move == Color::White && material_of(p) == m;
}

// Counts placements by splitting on the men standing where only one side's men may stand
// (white men on 46-50, black men on 1-5); independent of PositionIndex's own decomposition.
std::uint64_t independent_count(const Material& m) {
    std::uint64_t total = 0;
    for (int a = 0; a <= std::min(5, m.white_men); ++a)
        for (int b = 0; b <= std::min(5, m.black_men); ++b) {
            const std::uint64_t men = binomial(5, a) * binomial(5, b) * binomial(40, m.white_men - a) *
                                      binomial(40 - (m.white_men - a), m.black_men - b);
            const int free = 50 - m.men();
            total += men * binomial(free, m.white_kings) * binomial(free - m.white_kings, m.black_kings);
        }
    return total;
}

// compress_bits and expand_bits against a step per bit of the mask, on sparse and dense words:
// the BMI2 instructions in a native build, the portable fallback in a default one.
TEST(BitGathering, CompressAndExpandAgreeWithAPlainLoop) {
    const auto reference_compress = [](std::uint64_t b, std::uint64_t mask) {
        std::uint64_t out = 0;
        for (int bit = 0, i = 0; bit < 64; ++bit)
            if (mask >> bit & 1) out |= (b >> bit & 1) << i++;
        return out;
    };
    std::mt19937_64 rng(7);
    for (int n = 0; n < 200000; ++n) {
        const std::uint64_t mask = n % 3 == 0 ? kBoard : rng() & (n % 2 ? rng() : ~std::uint64_t{0});
        std::uint64_t b = rng();
        for (int thin = n % 4; thin > 0; --thin) b &= rng();  // from dense words down to a few bits
        const std::uint64_t compact = reference_compress(b, mask);
        ASSERT_EQ(compress_bits(b, mask), compact) << std::hex << b << " " << mask;
        ASSERT_EQ(expand_bits(compact, mask), b & mask) << std::hex << b << " " << mask;
    }
    EXPECT_EQ(compress_bits(0, kBoard), 0u);
    EXPECT_EQ(compress_bits(kBoard, kBoard), (std::uint64_t{1} << 50) - 1);
    EXPECT_EQ(compress_bits(~std::uint64_t{0}, ~std::uint64_t{0}), ~std::uint64_t{0});
}

TEST(Material, NamesRoundTripAndReadAtAGlance) {
    EXPECT_EQ((Material{1, 1, 0, 1}).name(), "KMvK");
    EXPECT_EQ((Material{3, 0, 2, 0}).name(), "MMMvMM");
    EXPECT_EQ((Material{0, 2, 1, 1}).name(), "KKvKM");
    for (const Material& m : materials_in_build_order(8)) EXPECT_EQ(parse_material(m.name()), m) << m.name();
    for (const char* bad : {"", "v", "Kv", "vK", "KxK", "MKvK", "KvK v", "kvk"})
        EXPECT_FALSE(parse_material(bad).has_value()) << bad;
}

TEST(Material, BuildOrderPutsEveryDependencyFirst) {
    const auto order = materials_in_build_order(6);
    std::set<Material> seen;
    for (const Material& m : order) {
        // Every material a capture or a promotion leads to is either built earlier, or is m or its mirror.
        const auto reachable = [&](Material to) {
            if (to.white_pieces() == 0 || to.black_pieces() == 0) return true;  // game over, no file
            return seen.count(to) || to == m || to == m.mirror();
        };
        if (m.white_men) {
            EXPECT_TRUE(reachable({m.white_men - 1, m.white_kings + 1, m.black_men, m.black_kings}));
        }
        if (m.black_men) {
            EXPECT_TRUE(reachable({m.white_men, m.white_kings, m.black_men - 1, m.black_kings + 1}));
        }
        if (m.black_men) {
            EXPECT_TRUE(reachable({m.white_men, m.white_kings, m.black_men - 1, m.black_kings}));
        }
        if (m.white_kings) {
            EXPECT_TRUE(reachable({m.white_men, m.white_kings - 1, m.black_men, m.black_kings}));
        }
        seen.insert(m);
    }
    EXPECT_EQ(seen.size(), order.size());
}

TEST(Material, MaxPerSideLimitsTheList) {
    for (const Material& m : materials_in_build_order(7, 4)) {
        EXPECT_LE(m.white_pieces(), 4);
        EXPECT_LE(m.black_pieces(), 4);
    }
}

TEST(PositionIndex, SizesMatchPublishedTotals) {
    // Legal white-to-move positions per piece count (DESIGN.md).
    EXPECT_EQ(positions_with_pieces(2), 8845u);
    EXPECT_EQ(positions_with_pieces(3), 806300u);
    EXPECT_EQ(positions_with_pieces(4), 41971200u);
    EXPECT_EQ(positions_with_pieces(5), 1570600750u);
    EXPECT_EQ(positions_with_pieces(6), 46198758750u);
}

TEST(PositionIndex, SizesMatchAnIndependentCountUpToEightPieces) {
    for (int n = 2; n <= 8; ++n) {
        std::uint64_t independent = 0;
        for (const Material& m : materials_in_build_order(n)) {
            if (m.pieces() != n) continue;
            EXPECT_EQ(PositionIndex(m).size(), independent_count(m)) << m.name();
            independent += independent_count(m);
        }
        EXPECT_EQ(positions_with_pieces(n), independent) << n << " pieces";
    }
}

TEST(PositionIndex, ExhaustiveRoundTripUpToFourPieces) {
    for (const Material& m : materials_in_build_order(4)) {
        const PositionIndex idx(m);
        std::uint64_t bad = 0;
        for (std::uint64_t i = 0; i < idx.size(); ++i) {
            const Position p = idx.position(i);
            if (!is_legal_for(p, m) || idx.index(p) != i) ++bad;
        }
        EXPECT_EQ(bad, 0u) << m.name();
    }
}

TEST(PositionIndex, KingsVaryFastestWithinAMenConfiguration) {
    const PositionIndex idx(Material{2, 1, 1, 1});
    for (std::uint64_t men = 0; men < idx.men_configs(); men += 997) {
        const MenConfig config = idx.men_config(men);
        for (std::uint64_t k = 0; k < idx.king_placements(); k += 13) {
            const Position p = idx.position(men * idx.king_placements() + k);
            EXPECT_EQ(p.men(Color::White), config.white_men);
            EXPECT_EQ(p.men(Color::Black), config.black_men);
        }
    }
}

TEST(PositionIndex, KingWalkerVisitsPlacementsInIndexOrder) {
    for (const Material m : {Material{1, 2, 1, 1}, Material{0, 3, 0, 2}, Material{2, 0, 1, 2}, Material{1, 0, 1, 3}}) {
        const PositionIndex idx(m);
        for (std::uint64_t men = 0; men < idx.men_configs(); men += 1 + idx.men_configs() / 7) {
            const MenConfig config = idx.men_config(men);
            for (std::uint64_t start : {std::uint64_t{0}, idx.king_placements() / 3}) {
                KingPlacementWalker walker(idx, config, start);
                for (std::uint64_t k = start; k < idx.king_placements(); ++k, walker.next()) {
                    const KingPlacement expected = idx.king_placement(config, k);
                    ASSERT_EQ(walker.current().white_kings, expected.white_kings) << m.name() << " " << k;
                    ASSERT_EQ(walker.current().black_kings, expected.black_kings) << m.name() << " " << k;
                }
            }
        }
    }
}

// Every square one king (white, then black) can stand on, for random placements of the others:
// the index OneWhiteKingMoving or OneBlackKingMoving gives unranks (independently of the ranking
// they replace) to that placement.
TEST(PositionIndex, OneKingMovingIndexesEachSquareOfTheMovingKing) {
    std::mt19937_64 rng(7);
    for (const Material m : {Material{0, 1, 0, 1}, Material{0, 3, 0, 2}, Material{1, 2, 1, 1}, Material{2, 1, 0, 3},
                             Material{0, 5, 0, 3}, Material{1, 4, 1, 4}, Material{0, 2, 3, 0}}) {
        const PositionIndex idx(m);
        std::uint64_t checked = 0;
        for (int trial = 0; trial < 200; ++trial) {
            const MenConfig men = idx.men_config(rng() % idx.men_configs());
            const KingPlacement kings = idx.king_placement(men, rng() % idx.king_placements());
            const Bitboard free = PositionIndex::king_squares(men);
            for (Bitboard movers = kings.white_kings; movers; movers &= movers - 1) {
                const Bitboard rest = kings.white_kings ^ (movers & -movers);
                const OneWhiteKingMoving moving(idx, free, rest, kings.black_kings);
                for (Bitboard to = free & ~rest & ~kings.black_kings; to; to &= to - 1) {
                    const std::uint64_t k = moving.king_index(lowest_bit(to));
                    ASSERT_LT(k, idx.king_placements()) << m.name();
                    const KingPlacement back = idx.king_placement(men, k);
                    ASSERT_EQ(back.white_kings, rest | (to & -to)) << m.name() << " square " << lowest_bit(to);
                    ASSERT_EQ(back.black_kings, kings.black_kings) << m.name() << " square " << lowest_bit(to);
                    ++checked;
                }
            }
            for (Bitboard movers = kings.black_kings; movers; movers &= movers - 1) {
                const Bitboard rest = kings.black_kings ^ (movers & -movers);
                const OneBlackKingMoving moving(idx, free, kings.white_kings, rest);
                for (Bitboard to = free & ~rest & ~kings.white_kings; to; to &= to - 1) {
                    const KingPlacement back = idx.king_placement(men, moving.king_index(lowest_bit(to)));
                    ASSERT_EQ(back.white_kings, kings.white_kings) << m.name() << " black, square " << lowest_bit(to);
                    ASSERT_EQ(back.black_kings, rest | (to & -to)) << m.name() << " black, square " << lowest_bit(to);
                    ++checked;
                }
            }
        }
        EXPECT_GT(checked, 1000u) << m.name();
    }
}

TEST(PositionIndex, PositionWalkerVisitsPositionsInIndexOrder) {
    // Small materials walked whole (crossing every men configuration boundary), and walks from
    // positions inside a configuration.
    for (const Material m : {Material{1, 1, 1, 0}, Material{2, 0, 1, 0}, Material{0, 2, 0, 1}, Material{1, 0, 2, 0}}) {
        const PositionIndex idx(m);
        for (std::uint64_t start : {std::uint64_t{0}, idx.size() / 3 + 1}) {
            PositionWalker walker(idx, start);
            for (std::uint64_t i = start; i < idx.size(); ++i) {
                if (i != start) walker.next();
                ASSERT_EQ(walker.current(), idx.position(i)) << m.name() << " " << i;
            }
        }
    }
}

TEST(PositionIndex, MenConfigWalkerVisitsConfigurationsInIndexOrder) {
    // Whole walks cross every group (white men on 46..50, up to five of them in MMMMMvK) and every
    // wrap of each part; men-free sides have one empty subset to step over.
    for (const Material m : {Material{1, 0, 1, 0}, Material{0, 1, 2, 0}, Material{2, 0, 0, 1}, Material{2, 1, 2, 0},
                             Material{3, 0, 1, 0}, Material{5, 0, 0, 1}, Material{1, 0, 3, 0}}) {
        const PositionIndex idx(m);
        MenConfigWalker walker(idx, 0);
        for (std::uint64_t c = 0; c < idx.men_configs(); ++c) {
            if (c != 0) walker.next();
            ASSERT_EQ(walker.current(), idx.men_config(c)) << m.name() << " " << c;
        }
    }
    // Walks started inside a large material, where a single unranking error would show at once.
    const PositionIndex idx(Material{3, 0, 3, 0});
    std::mt19937_64 rng(7);
    for (int walk = 0; walk < 200; ++walk) {
        const std::uint64_t start = rng() % (idx.men_configs() - 5000);
        MenConfigWalker walker(idx, start);
        for (std::uint64_t c = start; c < start + 5000; ++c) {
            if (c != start) walker.next();
            ASSERT_EQ(walker.current(), idx.men_config(c)) << c;
        }
    }
}

// Random legal position of a material, side to move chosen by the caller.
Position random_position(const Material& m, std::mt19937_64& rng) {
    Position p;
    const auto place = [&](int count, Bitboard allowed, bool white, bool king) {
        while (count > 0) {
            const Bitboard b = square_bit(1 + static_cast<int>(rng() % 50));
            if (!(b & allowed) || (b & p.occupied())) continue;
            (white ? p.white : p.black) |= b;
            if (king) p.kings |= b;
            --count;
        }
    };
    place(m.white_men, kBoard & ~kWhitePromotionRow, true, false);
    place(m.black_men, kBoard & ~kBlackPromotionRow, false, false);
    place(m.white_kings, kBoard, true, true);
    place(m.black_kings, kBoard, false, true);
    return p;
}

TEST(PositionIndex, RandomRoundTripsFiveToEightPiecesBothSidesToMove) {
    std::mt19937_64 rng(20261122);
    for (int n = 5; n <= 8; ++n) {
        std::vector<Material> materials;
        for (const Material& m : materials_in_build_order(n))
            if (m.pieces() == n) materials.push_back(m);
        std::vector<PositionIndex> indexes(materials.begin(), materials.end());
        std::uint64_t bad = 0;
        constexpr int kTrials = 1'000'000;
        for (int t = 0; t < kTrials; ++t) {
            const std::size_t which = rng() % materials.size();
            const PositionIndex& idx = indexes[which];
            // Position -> index -> position, with either side to move.
            Position p = random_position(materials[which], rng);
            if (t & 1) p = flip_colors(p);
            const Position w = white_to_move(p);
            const PositionIndex& widx = material_of(w) == idx.material() ? idx : PositionIndex(material_of(w));
            const std::uint64_t i = widx.index(w);
            if (i >= widx.size() || widx.position(i) != w) ++bad;
            // Index -> position -> index.
            const std::uint64_t j = rng() % idx.size();
            const Position q = idx.position(j);
            if (!is_legal_for(q, idx.material()) || idx.index(q) != j) ++bad;
        }
        EXPECT_EQ(bad, 0u) << n << " pieces";
    }
}

TEST(PositionIndex, ManMovesRaiseAdvancementByOneAndFlipKeepsIt) {
    std::mt19937_64 rng(7);
    const Material m{3, 1, 3, 1};
    for (int t = 0; t < 20000; ++t) {
        const Position p = random_position(m, rng);
        const MenConfig before{p.men(Color::White), p.men(Color::Black)};
        const Position f = flip_colors(p);
        EXPECT_EQ(men_advancement({f.men(Color::White), f.men(Color::Black)}), men_advancement(before));
        for (const Move& mv : generate_moves(p)) {
            if (mv.is_capture() || (p.kings >> mv.from & 1)) continue;
            const Position q = apply_move(p, mv);
            if (count_bits(q.kings) != count_bits(p.kings)) continue;  // promoted: another material
            EXPECT_EQ(men_advancement({q.men(Color::White), q.men(Color::Black)}), men_advancement(before) + 1);
        }
    }
}

}  // namespace
}  // namespace dtb
