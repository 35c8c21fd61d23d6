#include "serve/api.hpp"

#include <stdexcept>
#include <string>

#include "probe/line.hpp"
#include "rules/fen.hpp"
#include "rules/notation.hpp"

namespace dtb::serve {
namespace {

Json distance(const DtwResult& d) { return d.known() && d.dtw >= 0 ? Json(d.dtw) : Json(nullptr); }

void add_unknown_reason(Json& j, const ProbeResult& r) {
    if (r.known()) return;
    j["code"] = probe_error_name(r.error);
    j["reason"] = std::string(r.reason);
}

// The squares of each kind of piece, for the page to draw the board without parsing FEN.
Json board(const Position& pos) {
    Json b = {{"white_men", Json::array()}, {"white_kings", Json::array()},
              {"black_men", Json::array()}, {"black_kings", Json::array()}};
    for (int s = 1; s <= 50; ++s) {
        const Bitboard bit = square_bit(s);
        const bool king = pos.kings & bit;
        if (pos.white & bit) b[king ? "white_kings" : "white_men"].push_back(s);
        if (pos.black & bit) b[king ? "black_kings" : "black_men"].push_back(s);
    }
    return b;
}

Reply error_reply(const std::string& message) { return {400, Json{{"error", message}}}; }

// The position of `fen`, or the reason it is refused (an invalid FEN, an impossible position).
std::optional<Position> read_position(std::string_view fen, std::string& error) {
    try {
        const Position pos = parse_fen(fen);
        if (const char* problem = position_problem(pos)) {
            error = problem;
            return std::nullopt;
        }
        return pos;
    } catch (const FenError& e) {
        error = e.what();
        return std::nullopt;
    }
}

}  // namespace

Reply probe_reply(const Tablebase& tb, std::string_view fen) {
    std::string error;
    const std::optional<Position> pos = read_position(fen, error);
    if (!pos) return error_reply(error);
    const ProbeResult r = tb.probe_wdl(*pos);
    Json j = {{"fen", to_fen(*pos)},
              {"side", pos->side_to_move == Color::White ? "white" : "black"},
              {"value", value_name(r.value)},
              {"dtw", distance(tb.probe_dtw(*pos))}};
    add_unknown_reason(j, r);
    j["board"] = board(*pos);
    Json moves = Json::array();
    for (const MoveValue& m : tb.probe_moves(*pos, true)) {
        Json move = {{"move", move_to_string(*pos, m.move)},
                     {"from", square_of_bit(m.move.from)},
                     {"to", square_of_bit(m.move.to)},
                     {"fen", to_fen(apply_move(*pos, m.move))},
                     {"value", value_name(m.result.value)},
                     {"dtw", distance(m.after)}};
        add_unknown_reason(move, m.result);
        moves.push_back(std::move(move));
    }
    j["moves"] = std::move(moves);
    return {200, std::move(j)};
}

Reply line_reply(const Tablebase& tb, std::string_view fen) {
    std::string error;
    const std::optional<Position> pos = read_position(fen, error);
    if (!pos) return error_reply(error);
    const OptimalLine line = optimal_line(tb, *pos);
    Json j = {{"fen", to_fen(*pos)}, {"value", value_name(line.start.value)}, {"dtw", distance(line.start)}};
    Json moves = Json::array();
    Position now = *pos;
    for (const LineMove& m : line.moves) {
        moves.push_back({{"move", move_to_string(now, m.move)},
                         {"fen", to_fen(m.after)},
                         {"value", value_name(negate(m.result.value))},
                         {"dtw", distance(m.result)}});
        now = m.after;
    }
    j["line"] = std::move(moves);
    if (!line.complete)
        j["problem"] = has_distance(line.start)
                           ? "a successor of " + to_fen(now) + " has no distance to win: " + std::string(line.stopped.reason)
                           : std::string(line.start.reason);
    return {200, std::move(j)};
}

Reply health_reply(const Tablebase& tb) {
    return {200, Json{{"status", "ok"},
                      {"max_pieces", tb.max_pieces()},
                      {"max_dtw_pieces", tb.max_dtw_pieces()},
                      {"materials", tb.materials().size()}}};
}

}  // namespace dtb::serve
