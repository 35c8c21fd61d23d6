// The JSON API of `dtb serve`, apart from HTTP so that it can be called (and tested) directly.
// Every answer is a status code and a JSON object; values are for the side to move, as `dtb probe`.
#pragma once

#include <string_view>

#include "probe/tablebase.hpp"
#include "serve/json.hpp"

namespace dtb::serve {

struct Reply {
    int status = 200;  // 200, or 400 for an invalid FEN
    Json body;
};

// GET /api/probe?fen=FEN: {fen, side, value, dtw, [code, reason], board, moves: [{move, from, to,
// fen, value, dtw, [code, reason]}...]}, moves best first as `dtb probe --moves --dtw`: a move's
// value is for the side that plays it, its dtw the distance of the position after it.
// An invalid FEN: 400 {error}. A position beyond the databases: 200, value "unknown" and why.
Reply probe_reply(const Tablebase& tb, std::string_view fen);

// GET /api/line?fen=FEN: {fen, value, dtw, line: [{move, fen, value, dtw}...], [problem]}, the
// optimal line of `dtb line`: each move's value for the side that plays it, dtw the plies left.
Reply line_reply(const Tablebase& tb, std::string_view fen);

// GET /api/health: {status: "ok", max_pieces, max_dtw_pieces, materials}.
Reply health_reply(const Tablebase& tb);

}  // namespace dtb::serve
