// The Python module `dtb`: the probing library (probe/tablebase.hpp, probe/line.hpp) and the game
// adjudication (adjudicate/adjudicator.hpp) for Python programs. Values are the command line's words
// ('win', 'draw', 'loss'); every call into the databases runs with the GIL released, so Python
// threads probe one Tablebase in parallel. docs/PYTHON.md describes the module.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "adjudicate/adjudicator.hpp"
#include "probe/line.hpp"
#include "probe/oracle.hpp"
#include "probe/tablebase.hpp"
#include "rules/fen.hpp"
#include "rules/notation.hpp"
#include "rules/pdn.hpp"

namespace py = pybind11;

namespace dtb::python {
namespace {

// The databases cannot give a value or a distance: raised in Python as dtb.UnknownValue (a
// LookupError) with the library's code ("missing-table", "too-many-pieces", ...) and reason.
struct UnknownValue : std::exception {
    std::string code;
    std::string reason;
    std::string message;

    UnknownValue(std::string_view code_, std::string_view reason_)
        : code(code_), reason(reason_), message(std::string(reason_) + " (" + std::string(code_) + ")") {}
    const char* what() const noexcept override { return message.c_str(); }
};

// A database folder that cannot be used: raised in Python as OSError.
struct FolderError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The position of `fen`; std::invalid_argument (ValueError) for text that is not a FEN or a
// position the databases cannot hold (overlapping pieces, a man on its crowning row, ...).
Position position_of(std::string_view fen) {
    Position pos;
    try {
        pos = parse_fen(fen);
    } catch (const FenError& e) {
        throw std::invalid_argument(e.what());
    }
    if (const char* problem = position_problem(pos)) throw std::invalid_argument(std::string(fen) + ": " + problem);
    return pos;
}

// The value of a known result, or UnknownValue saying why there is none.
template <typename Result>
const char* known_value(const Result& r) {
    if (!r.known()) throw UnknownValue(probe_error_name(r.error), r.reason);
    return value_name(r.value);
}

std::optional<int> distance(const DtwResult& d) { return d.known() && d.dtw >= 0 ? std::optional<int>(d.dtw) : std::nullopt; }

// Opens the folder as the command line does: a folder without databases is refused, not probed.
std::unique_ptr<Tablebase> open_tablebase(const std::string& path, std::size_t cache_mb, int max_pieces,
                                          std::uint64_t search_nodes, bool resident) {
    // The bounds of the command line's options.
    if (cache_mb > kMaxCacheMb)
        throw std::invalid_argument("cache_mb must be from 0 to " + std::to_string(kMaxCacheMb) + " (16 TiB), not " +
                                    std::to_string(cache_mb));
    if (max_pieces < 0) throw std::invalid_argument("max_pieces must be 0 (every database) or more");
    TablebaseOptions options;
    options.cache_mb = cache_mb;
    options.max_pieces = max_pieces;
    options.capture_search_nodes = search_nodes;
    options.resident = resident;
    // Problems found while probing (a missing or corrupt file) go to the logging module, once each.
    // The probing thread holds no GIL here (every probe releases it), so taking it cannot deadlock;
    // a failing handler cannot raise through the library, and is reported as unraisable instead.
    options.log = [](std::string_view message) {
        const py::gil_scoped_acquire gil;
        try {
            py::module_::import("logging").attr("getLogger")("dtb").attr("warning")(std::string(message));
        } catch (py::error_already_set& e) {
            e.discard_as_unraisable("dtb: logging a warning");
        }
    };
    std::unique_ptr<Tablebase> tb;
    try {
        tb = std::make_unique<Tablebase>(path, std::move(options));
    } catch (const std::exception& e) {
        throw FolderError(e.what());
    }
    if (tb->max_pieces() == 0) throw FolderError("no databases (*.wdl files) in " + path);
    if (resident) {
        const py::gil_scoped_release unlocked;  // seconds to minutes: other Python threads go on
        tb->preload();
    }
    return tb;
}

// The module's attribute `name` (a type made at import: UnknownValue, MoveValue, LineStep).
py::object module_type(const char* name) { return py::module_::import("dtb").attr(name); }

// --- adjudication: one dict per game, with the keys of `dtb adjudicate --json` ---------------------

py::object optional_string(const std::optional<std::string>& s) { return s ? py::object(py::str(*s)) : py::none(); }

py::list warnings_of(const GameAnalysis& a) {
    py::list out;
    for (const PdnError& w : a.warnings) {
        py::dict d;
        d["line"] = w.line;
        d["column"] = w.column;
        d["message"] = w.message;
        out.append(d);
    }
    return out;
}

py::list changes_of(const GameAnalysis& a) {
    py::list out;
    for (const ValueChange& c : a.changes) {
        py::dict d;
        d["ply"] = c.ply;
        d["move"] = c.move;
        d["fen"] = c.fen;
        d["before"] = value_name(c.before);
        d["after"] = value_name(c.after);
        if (c.dtw_before) d["dtw_before"] = *c.dtw_before;
        out.append(d);
    }
    return out;
}

py::list rules_of(const GameAnalysis& a) {
    py::list out;
    for (const RuleEvent& e : a.rules) {
        py::dict d;
        d["rule"] = std::string(to_string(e.rule));
        d["ply"] = e.ply;
        d["event"] = e.draw ? "draw" : "count";
        if (!e.draw) d["plies_allowed"] = e.plies_allowed;
        out.append(d);
    }
    return out;
}

py::dict game_dict(int index, const GameAnalysis& a) {
    py::dict d;
    d["game"] = index;
    d["white"] = optional_string(a.white);
    d["black"] = optional_string(a.black);
    d["result"] = a.result.empty() ? py::object(py::none()) : py::object(py::str(a.result));
    if (!a.result_written.empty()) d["result_written"] = a.result_written;
    d["plies"] = a.plies;
    d["final_fen"] = a.final_fen;
    if (!a.warnings.empty()) d["warnings"] = warnings_of(a);
    if (a.error) d["error"] = a.error->to_string();
    if (a.first_known_ply) {
        py::dict first;
        first["ply"] = *a.first_known_ply;
        first["fen"] = a.first_known_fen;
        first["value"] = value_name(a.first_known.value);
        if (a.first_known.dtw) first["dtw"] = *a.first_known.dtw;
        d["first_known"] = first;
    }
    d["changes"] = changes_of(a);
    d["rules"] = rules_of(a);
    if (a.forced_win) d["forced_win"] = to_string(*a.forced_win);
    if (a.search) {
        py::dict s;
        s["nodes"] = a.search->nodes;
        s["seconds"] = a.search->seconds;
        s["memory_mb"] = a.search->memory_bytes >> 20;
        s["budget_exceeded"] = a.search->budget_exceeded;
        d["search"] = s;
    }
    d["verdict"] = to_string(a.consistency);
    d["explanation"] = a.explanation;
    return d;
}

// --- the Tablebase class -----------------------------------------------------------------------

const char* probe_wdl(const Tablebase& tb, const std::string& fen) {
    const py::gil_scoped_release nogil;
    return known_value(tb.probe_wdl(position_of(fen)));
}

py::tuple probe_dtw(const Tablebase& tb, const std::string& fen) {
    DtwResult d;
    {
        const py::gil_scoped_release nogil;
        d = tb.probe_dtw(position_of(fen));
    }
    const char* value = known_value(d);
    if (d.value != Value::Draw && d.dtw < 0) throw UnknownValue(probe_error_name(d.error), d.reason);
    return py::make_tuple(value, distance(d));
}

py::list probe_moves(const Tablebase& tb, const std::string& fen) {
    const Position pos = position_of(fen);
    std::vector<MoveValue> moves;
    {
        const py::gil_scoped_release nogil;
        moves = tb.probe_moves(pos, true);
    }
    const py::object move_type = module_type("MoveValue");
    py::list out;
    for (const MoveValue& m : moves)
        out.append(move_type(move_to_string(pos, m.move), to_fen(apply_move(pos, m.move)), value_name(m.result.value),
                             m.result.known() ? distance(m.after) : std::nullopt));
    return out;
}

py::list line(const Tablebase& tb, const std::string& fen) {
    const Position start = position_of(fen);
    OptimalLine l;
    {
        const py::gil_scoped_release nogil;
        l = optimal_line(tb, start);
    }
    if (!has_distance(l.start)) throw UnknownValue(probe_error_name(l.start.error), l.start.reason);
    if (!l.complete) throw UnknownValue(probe_error_name(l.stopped.error), l.stopped.reason);
    const py::object step_type = module_type("LineStep");
    py::list out;
    Position pos = start;
    for (const LineMove& m : l.moves) {
        out.append(step_type(move_to_string(pos, m.move), to_fen(m.after), value_name(negate(m.result.value)), m.result.dtw));
        pos = m.after;
    }
    return out;
}

py::list adjudicate(const Tablebase& tb, const std::string& pdn, const std::string& file_name, double search_seconds,
                    std::uint64_t search_nodes, std::uint64_t search_memory_mb) {
    if (!(search_seconds >= 0 && search_seconds <= 1e6))
        throw std::invalid_argument("search_seconds must be from 0 to 1e6 (0: no bound)");
    if (search_memory_mb > std::uint64_t{1} << 30)
        throw std::invalid_argument("search_memory_mb must be from 0 to " + std::to_string(std::uint64_t{1} << 30));
    std::vector<GameAnalysis> analyses;
    {
        const py::gil_scoped_release nogil;
        AnalysisOptions options;
        options.search = {.max_nodes = search_nodes, .max_seconds = search_seconds, .max_memory_mb = search_memory_mb};
        const Oracle oracle = tablebase_oracle(tb);
        for (const PdnGame& game : read_pdn(pdn, file_name)) analyses.push_back(analyse_game(game, oracle, options));
    }
    py::list out;
    for (std::size_t i = 0; i < analyses.size(); ++i) out.append(game_dict(static_cast<int>(i + 1), analyses[i]));
    return out;
}

void register_exceptions(py::module_& m) {
    const py::object unknown = py::reinterpret_steal<py::object>(PyErr_NewExceptionWithDoc(
        "dtb.UnknownValue",
        "The databases cannot give this value or distance (a missing or corrupt file, more pieces than "
        "they cover, a capture search past its bound). Attributes: code ('missing-table', "
        "'too-many-pieces', 'bad-table', 'search-limit', ...) and reason (a sentence).",
        PyExc_LookupError, nullptr));
    if (!unknown) throw py::error_already_set();
    m.attr("UnknownValue") = unknown;
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const UnknownValue& e) {
            const py::object type = module_type("UnknownValue");
            const py::object error = type(e.message);
            error.attr("code") = e.code;
            error.attr("reason") = e.reason;
            PyErr_SetObject(type.ptr(), error.ptr());
        } catch (const FolderError& e) {
            PyErr_SetString(PyExc_OSError, e.what());
        }
    });
}

}  // namespace
}  // namespace dtb::python

PYBIND11_MODULE(dtb, m) {
    using namespace dtb;
    using namespace dtb::python;
    m.doc() = "Endgame tablebases of international draughts (10x10, FMJD rules): values, distances to win, "
              "optimal lines and game adjudication. See docs/PYTHON.md.";
    register_exceptions(m);
    const py::object namedtuple = py::module_::import("collections").attr("namedtuple");
    m.attr("MoveValue") = namedtuple("MoveValue", "move fen_after value dtw", py::arg("module") = "dtb");
    m.attr("LineStep") = namedtuple("LineStep", "move fen_after value dtw", py::arg("module") = "dtb");

    py::class_<Tablebase>(m, "Tablebase",
                          "The databases of one folder (.wdl files, and .dtw files for distances). Thread-safe: "
                          "probes release the GIL, so several Python threads may share one Tablebase.")
        .def(py::init(&open_tablebase), py::arg("path"), py::arg("cache_mb") = TablebaseOptions{}.cache_mb,
             py::arg("max_pieces") = 0, py::arg("search_nodes") = TablebaseOptions{}.capture_search_nodes,
             py::arg("resident") = false,
             "Opens the database folder `path` (OSError if it is unusable or holds no .wdl file). cache_mb: "
             "memory for decompressed blocks; max_pieces: ignore files of more pieces (0: none ignored); "
             "search_nodes: most positions one probe visits resolving captures (0: no bound); resident: load "
             "every .wdl file into memory now (docs/PROBING.md), so that WDL probes never read the disk.")
        .def("probe_wdl", &probe_wdl, py::arg("fen"),
             "'win', 'draw' or 'loss' for the side to move. ValueError for an invalid FEN, "
             "dtb.UnknownValue when the databases cannot tell.")
        .def("probe_dtw", &probe_dtw, py::arg("fen"),
             "(value, dtw): dtw the plies to the end of the game under optimal play (odd for a win, even for a "
             "loss), None for a draw. dtb.UnknownValue when the value or the distance cannot be read (no .dtw "
             "file, more pieces than they cover).")
        .def("probe_moves", &probe_moves, py::arg("fen"),
            "Every legal move, best first, as MoveValue(move, fen_after, value, dtw): value for the side to move "
            "before the move ('unknown' when the databases cannot tell), dtw the distance of the position after "
            "it for the opponent (None for a draw or when unknown).")
        .def("line", &line, py::arg("fen"),
            "An optimal line to the end of the game: a list of LineStep(move, fen_after, value, dtw), value for "
            "the player who moved, dtw the plies left after the move. [] for a draw. dtb.UnknownValue when a "
            "distance on the way cannot be read.")
        .def("adjudicate", &adjudicate, py::arg("pdn"), py::arg("file_name") = "<pdn>",
             py::arg("search_seconds") = ForcedWinOptions{}.max_seconds,
             py::arg("search_nodes") = ForcedWinOptions{}.max_nodes,
             py::arg("search_memory_mb") = ForcedWinOptions{}.max_memory_mb,
             "Judges every game of a PDN text (str or bytes) as `dtb adjudicate --json` does: a list of dicts "
             "with its keys (but 'file'), one per game. file_name only names the text in messages.")
        .def_property_readonly("max_pieces", &Tablebase::max_pieces, "Most pieces of the .wdl files in use")
        .def_property_readonly("max_dtw_pieces", &Tablebase::max_dtw_pieces, "Most pieces of the .dtw files (0: none)")
        .def_property_readonly("resident_bytes", &Tablebase::resident_bytes,
                               "Bytes of memory the resident .wdl files hold (0 unless opened with resident=True)")
        .def_property_readonly(
            "materials",
            [](const Tablebase& tb) {
                std::vector<std::string> names;
                for (const Material& mat : tb.materials()) names.push_back(mat.name());
                return names;
            },
            "Names of the materials present ('KMvK', ...), in build order")
        .def_property_readonly("directory", [](const Tablebase& tb) { return tb.directory().string(); });
}
