#include "index/position_index.hpp"

#include <stdexcept>


namespace dtb {
namespace {

constexpr Bitboard kWhiteOnlyMenSquares = kBlackPromotionRow;  // 46..50: black men may not stand there
constexpr Bitboard kSharedMenSquares = squares_mask(6, 45);
constexpr Bitboard kBlackMenSquares = squares_mask(1, 45);
constexpr int kOnlyWhite = 5;
constexpr int kShared = 40;
constexpr int kBlackMen = 45;  // squares of kBlackMenSquares

}  // namespace

PositionIndex::PositionIndex(Material m) : material_(m) {
    if (m.white_pieces() < 1 || m.black_pieces() < 1 || m.pieces() > kNumSquares)
        throw std::invalid_argument("material " + m.name() + " has no legal positions");
    for (int j = 0; j <= m.white_men && j <= kOnlyWhite; ++j) {
        MenGroup g;
        g.offset = men_configs_;
        g.white_back_rank_count = binomial(kShared, m.white_men - j);
        g.black_count = binomial(kBlackMen - (m.white_men - j), m.black_men);
        g.count = binomial(kOnlyWhite, j) * g.white_back_rank_count * g.black_count;
        men_configs_ += g.count;
        groups_.push_back(g);
    }
    const int free = kNumSquares - m.men();
    black_king_placements_ = binomial(free - m.white_kings, m.black_kings);
    king_placements_ = binomial(free, m.white_kings) * black_king_placements_;
}

std::uint64_t PositionIndex::men_index(const MenConfig& men) const {
    const Bitboard white_far = men.white_men & kWhiteOnlyMenSquares;
    const Bitboard white_shared = men.white_men & kSharedMenSquares;
    const MenGroup& g = groups_[count_bits(white_far)];
    const std::uint64_t white_rank =
        rank_in(white_far, kWhiteOnlyMenSquares) * g.white_back_rank_count + rank_in(white_shared, kSharedMenSquares);
    const std::uint64_t black_rank = rank_in(men.black_men, kBlackMenSquares & ~white_shared);
    return g.offset + white_rank * g.black_count + black_rank;
}

std::pair<int, std::uint64_t> PositionIndex::group_of(std::uint64_t index) const {
    int j = 0;
    while (j + 1 < static_cast<int>(groups_.size()) && groups_[j + 1].offset <= index) ++j;
    return {j, index - groups_[j].offset};
}

MenConfig PositionIndex::men_config(std::uint64_t men_index) const {
    const auto [j, index] = group_of(men_index);
    const MenGroup& g = groups_[j];
    const std::uint64_t black_rank = index % g.black_count;
    const std::uint64_t white_rank = index / g.black_count;
    const Bitboard white_far =
        expand_bits(unrank_subset(white_rank / g.white_back_rank_count, j, kOnlyWhite), kWhiteOnlyMenSquares);
    const Bitboard white_shared =
        expand_bits(unrank_subset(white_rank % g.white_back_rank_count, material_.white_men - j, kShared), kSharedMenSquares);
    const Bitboard black = expand_bits(unrank_subset(black_rank, material_.black_men, count_bits(kBlackMenSquares & ~white_shared)), kBlackMenSquares & ~white_shared);
    return {white_far | white_shared, black};
}

KingPlacement PositionIndex::king_placement(const MenConfig& men, std::uint64_t index) const {
    const Bitboard free = kBoard & ~(men.white_men | men.black_men);
    const Bitboard white = expand_bits(unrank_subset(index / black_king_placements_, material_.white_kings, count_bits(free)), free);
    const Bitboard black =
        expand_bits(unrank_subset(index % black_king_placements_, material_.black_kings,
                                                       count_bits(free & ~white)), free & ~white);
    return {white, black};
}

Position PositionIndex::position(std::uint64_t index) const {
    const MenConfig men = men_config(index / king_placements_);
    return compose_position(men, king_placement(men, index % king_placements_));
}

KingPlacementWalker::KingPlacementWalker(const PositionIndex& index, const MenConfig& men, std::uint64_t first)
    : free_(kBoard & ~(men.white_men | men.black_men)),
      white_count_(index.material().white_kings),
      black_count_(index.material().black_kings),
      black_limit_(std::uint64_t{1} << (count_bits(free_) - white_count_)) {
    const KingPlacement start = index.king_placement(men, first);
    white_compact_ = compress_bits(start.white_kings, free_);
    black_compact_ = compress_bits(start.black_kings, free_ & ~start.white_kings);
    current_ = start;
}

void KingPlacementWalker::next() {
    if (black_count_ > 0) {
        black_compact_ = next_subset(black_compact_);
        if (black_compact_ < black_limit_) {
            place();
            return;
        }
        black_compact_ = (std::uint64_t{1} << black_count_) - 1;
    }
    if (white_count_ > 0) white_compact_ = next_subset(white_compact_);
    place();
}

void KingPlacementWalker::place() {
    current_.white_kings = expand_bits(white_compact_, free_);
    current_.black_kings = expand_bits(black_compact_, free_ & ~current_.white_kings);
}

namespace {

// The smallest k-subset of 0 .. n-1 in the combinatorial number system's order.
constexpr std::uint64_t first_subset(int k) { return (std::uint64_t{1} << k) - 1; }

// Steps the k-subset `s` of 0 .. n-1 (n < 64) to its successor; after the last one it wraps to
// the first and returns false.
bool step_subset(std::uint64_t& s, int k, int n) {
    if (k > 0) {
        s = next_subset(s);
        if (s >> n == 0) return true;
    }
    s = first_subset(k);
    return false;
}

}  // namespace

MenConfigWalker::MenConfigWalker(const PositionIndex& index, std::uint64_t first)
    : white_men_(index.material().white_men), black_men_(index.material().black_men) {
    const auto [j, in_group] = index.group_of(first);
    const PositionIndex::MenGroup& g = index.groups_[j];
    const std::uint64_t white_rank = in_group / g.black_count;
    group_ = j;
    far_ = unrank_subset(white_rank / g.white_back_rank_count, j, kOnlyWhite);
    shared_ = unrank_subset(white_rank % g.white_back_rank_count, white_men_ - j, kShared);
    black_ = unrank_subset(in_group % g.black_count, black_men_, kBlackMen - (white_men_ - j));
    place();
}

void MenConfigWalker::next() {
    const int shared_men = white_men_ - group_;
    if (!step_subset(black_, black_men_, kBlackMen - shared_men) && !step_subset(shared_, shared_men, kShared) &&
        !step_subset(far_, group_, kOnlyWhite)) {
        ++group_;
        far_ = first_subset(group_);
        shared_ = first_subset(white_men_ - group_);
    }
    place();
}

void MenConfigWalker::place() {
    const Bitboard white_shared = expand_bits(shared_, kSharedMenSquares);
    const Bitboard black_region = kBlackMenSquares & ~white_shared;
    current_ = {expand_bits(far_, kWhiteOnlyMenSquares) | white_shared, expand_bits(black_, black_region)};
}

PositionWalker::PositionWalker(const PositionIndex& index, std::uint64_t first)
    : index_(&index),
      king_index_(first % index.king_placements()),
      men_(index, first / index.king_placements()),
      kings_(index, men_.current(), king_index_) {
    place();
}

void PositionWalker::next() {
    if (++king_index_ == index_->king_placements()) {
        king_index_ = 0;
        men_.next();
        kings_ = KingPlacementWalker(*index_, men_.current(), 0);
    } else {
        kings_.next();
    }
    place();
}

void PositionWalker::place() {
    current_ = compose_position(men_.current(), kings_.current());
}

int men_advancement(const MenConfig& men) {
    int total = 0;
    for (Bitboard b = men.white_men; b; b &= b - 1) total += 9 - (square_of_bit(lowest_bit(b)) - 1) / 5;
    for (Bitboard b = men.black_men; b; b &= b - 1) total += (square_of_bit(lowest_bit(b)) - 1) / 5;
    return total;
}

std::vector<std::uint64_t> men_configs_by_advancement(const Material& m) {
    // ways[w][b][a]: placements of w white and b black men on the rows so far, advancement a.
    constexpr int kRows = 10, kSquaresPerRow = 5;
    const int whites = m.white_men, blacks = m.black_men, most = 8 * (whites + blacks);
    using Table = std::vector<std::vector<std::vector<std::uint64_t>>>;
    Table ways(whites + 1, std::vector<std::vector<std::uint64_t>>(blacks + 1, std::vector<std::uint64_t>(most + 1, 0)));
    ways[0][0][0] = 1;
    for (int row = 0; row < kRows; ++row) {  // row 0: squares 1-5, black men only; row 9: 46-50, white only
        Table next(ways.size(), std::vector<std::vector<std::uint64_t>>(blacks + 1, std::vector<std::uint64_t>(most + 1, 0)));
        const int white_max = row == 0 ? 0 : kSquaresPerRow, black_max = row == kRows - 1 ? 0 : kSquaresPerRow;
        for (int w = 0; w <= whites; ++w)
            for (int b = 0; b <= blacks; ++b)
                for (int a = 0; a <= most; ++a) {
                    if (ways[w][b][a] == 0) continue;
                    for (int dw = 0; dw <= std::min(white_max, whites - w); ++dw)
                        for (int db = 0; db <= std::min(black_max - 0, blacks - b) && dw + db <= kSquaresPerRow; ++db) {
                            const int advanced = a + dw * (kRows - 1 - row) + db * row;
                            next[w + dw][b + db][advanced] +=
                                ways[w][b][a] * binomial(kSquaresPerRow, dw) * binomial(kSquaresPerRow - dw, db);
                        }
                }
        ways = std::move(next);
    }
    std::vector<std::uint64_t> out = ways[whites][blacks];
    while (out.size() > 1 && out.back() == 0) out.pop_back();
    return out;
}

std::uint64_t positions_with_pieces(int n) {
    std::uint64_t total = 0;
    for (const Material& m : materials_in_build_order(n))
        if (m.pieces() == n) total += PositionIndex(m).size();
    return total;
}

SubsetPlusOne::SubsetPlusOne(Bitboard region, Bitboard rest) : region_(region), rest_(rest) {
    const int n = count_bits(rest);
    if (n + 1 > kMaxSquares) throw std::invalid_argument("SubsetPlusOne: too many squares");
    // The i-th square of rest (from 1, lowest first) at compressed position c: its term is C(c, i)
    // if the added square lies above it, C(c, i + 1) if below.
    // Each sum is the one before with one square's term changed (the predecessor walks build one
    // of these for every king of every settled position: summing each anew took an eighth of a
    // pair with four kings on a side). c <= 50 and k + 1 <= 16 lie in the table, k > c giving 0.
    int c[kMaxSquares] = {};
    int i = 0;
    for (Bitboard b = rest; b; b &= b - 1) c[++i] = count_bits(region & ((b & -b) - 1));
    std::uint64_t sum = 0;
    for (int k = 1; k <= n; ++k) sum += kBinomials.c[c[k]][k + 1];
    sums_[0] = sum;
    for (int j = 1; j <= n; ++j) sums_[j] = sums_[j - 1] + kBinomials.c[c[j]][j] - kBinomials.c[c[j]][j + 1];
}

OneWhiteKingMoving::OneWhiteKingMoving(const PositionIndex& index, Bitboard free, Bitboard rest, Bitboard black)
    : white_(free, rest), black_(black), black_placements_(index.black_king_placements()) {
    const int blacks = count_bits(black);
    if (blacks > SubsetPlusOne::kMaxSquares) throw std::invalid_argument("OneWhiteKingMoving: too many kings");
    // The i-th black king at compressed position c among free minus rest: C(c, i) if the moving
    // king lies above it, C(c - 1, i) if below (the moving king then takes a square below it).
    const Bitboard region = free & ~rest;
    // As in SubsetPlusOne, each sum from the one before. C(c - 1, k) is 0 for c = 0 (no square
    // below that king: the moving king cannot lie below it).
    int c[SubsetPlusOne::kMaxSquares + 1] = {};
    int i = 0;
    for (Bitboard b = black; b; b &= b - 1) c[++i] = count_bits(region & ((b & -b) - 1));
    const auto below_moving = [&](int k) { return c[k] > 0 ? kBinomials.c[c[k] - 1][k] : 0; };
    std::uint64_t sum = 0;
    for (int k = 1; k <= blacks; ++k) sum += below_moving(k);
    black_sums_[0] = sum;
    for (int m = 1; m <= blacks; ++m) black_sums_[m] = black_sums_[m - 1] + kBinomials.c[c[m]][m] - below_moving(m);
}

}  // namespace dtb
