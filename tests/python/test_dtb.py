"""The Python module dtb against a real 2-4 piece build with distances to win, the dtb command line
on the same folder, and facts of the game (published longest wins, a side without pieces has lost).

Run by ctest (tests/python_tests.cmake) with PYTHONPATH holding the built module and
DTB_EXE (the dtb binary), DTB_DB (dtb gen --pieces 4 --dtw), DTB_PDN (tests/data/pdn) and
DTB_SAMPLES (samples/) in the environment.
"""
import json
import os
import shutil
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import dtb

EXE = os.environ["DTB_EXE"]
DB = os.environ["DTB_DB"]
PDN = os.environ["DTB_PDN"]
SAMPLES = os.environ["DTB_SAMPLES"]

# Quiet and capture positions of 2-4 pieces, either side to move, decisive and drawn.
FENS = [
    "W:W21:B3,4", "W:W40,44:B3", "W:WK1:BK50", "W:W33:B2", "W:W23:B5,6", "W:WK2,6:BK50",
    "W:W28,32:B23,K5", "B:W33,34:B18,K45", "W:WK26,37:B23,K42", "B:WK10,35:B6,7", "W:W38,39:B12,13",
    "W:W47:B3,4,K20", "B:W40,44:B3", "W:WK23,K31,K41:BK3", "W:W16,K24,K50:BK40", "W:WK6,K19,45:BK2",
    "W:W32:B27", "B:W32:B27", "W:W31,32:B1,2",
]
BEYOND = "W:W31,32,33:B1,2"  # five pieces, no capture: beyond a 2-4 build


def cli(*args, check=True):
    done = subprocess.run([EXE, *args], capture_output=True, text=True)
    if check:
        assert done.returncode == 0, (args, done.returncode, done.stderr)
    return done


def cli_json(*args):
    return [json.loads(line) for line in cli(*args).stdout.splitlines()]


@pytest.fixture(scope="module")
def tb():
    return dtb.Tablebase(DB)


@pytest.fixture(scope="module")
def cli_probes():
    """dtb probe --moves --dtw --json of every FEN, by FEN."""
    return {o["fen"]: o for o in cli_json("probe", "--db", DB, "--moves", "--dtw", "--json", *FENS)}


def test_published_distances_and_rules_of_the_game(tb):
    # Longest wins of MvMM, MMvM and MvM (Grimminck), as tests/dtw/line_test.sh checks them.
    assert tb.probe_dtw("W:W21:B3,4") == ("win", 33)
    assert tb.probe_dtw("W:W40,44:B3") == ("win", 23)
    assert tb.probe_dtw("W:W33:B2") == ("win", 17)
    assert tb.probe_dtw("W:WK1:BK50") == ("draw", None)
    assert tb.probe_wdl("W:WK1:BK50") == "draw"
    # A side to move without pieces, or without moves, has lost; the game is over.
    assert tb.probe_wdl("W:W:B3") == "loss"
    assert tb.probe_dtw("B:W31:B") == ("loss", 0)
    assert tb.probe_moves("W:W:B3") == []
    # The opponent has no piece: the side to move has won (it took the last one).
    assert tb.probe_wdl("W:W31:B") == "win"
    assert tb.max_pieces == 4 and tb.max_dtw_pieces == 4
    assert "KMvK" in tb.materials and len(tb.materials) == 41
    assert tb.directory == DB


def test_values_and_distances_as_the_command_line(tb, cli_probes):
    decisive = 0
    for fen in FENS:
        expected = cli_probes[fen]
        assert tb.probe_wdl(fen) == expected["value"], fen
        assert tb.probe_dtw(fen) == (expected["value"], expected["dtw"]), fen
        decisive += expected["value"] != "draw"
    assert decisive >= 12


def test_moves_as_the_command_line_and_consistent(tb, cli_probes):
    for fen in FENS:
        moves = tb.probe_moves(fen)
        expected = cli_probes[fen]["moves"]
        assert [(m.move, m.value, m.dtw) for m in moves] == [(m["move"], m["value"], m["dtw"]) for m in expected]
        # fen_after is what dtb moves gives, and each value and distance is that of the position after.
        listed = dict(line.split("\t") for line in cli("moves", fen).stdout.splitlines())
        assert {m.move: m.fen_after for m in moves} == listed
        for m in moves:
            opponent, dtw = tb.probe_dtw(m.fen_after)
            assert m.value == {"win": "loss", "loss": "win", "draw": "draw"}[opponent]
            assert m.dtw == dtw
        value, dtw = tb.probe_dtw(fen)
        if dtw is not None and dtw > 0:
            assert moves[0].dtw == dtw - 1, fen  # the best move is one ply closer to the end


def test_line_is_optimal_and_as_the_command_line(tb):
    for fen, plies in [("W:W33:B2", 17), ("W:W21:B3,4", 33), ("W:W23:B5,6", 29), ("W:WK2,6:BK50", 9)]:
        line = tb.line(fen)
        assert len(line) == plies
        assert [s.dtw for s in line] == list(range(plies - 1, -1, -1))
        # Winner and loser alternate; the winner makes the last move, after which the loser cannot move.
        assert [s.value for s in line] == ["win" if i % 2 == 0 else "loss" for i in range(plies)]
        assert tb.probe_moves(line[-1].fen_after) == []
        printed = cli("line", "--db", DB, fen).stdout.splitlines()[1:]
        assert [(s.move, s.value, str(s.dtw)) for s in line] == [tuple(p.split("\t")) for p in printed]
        position = fen
        for step in line:
            assert step.move in {m.move: m for m in tb.probe_moves(position)}
            position = step.fen_after
    assert tb.line("W:WK1:BK50") == []


def test_beyond_the_databases_is_unknown_never_a_guess(tb):
    expected = cli_json("probe", "--db", DB, "--moves", "--dtw", "--json", BEYOND)[0]
    assert expected["value"] == "unknown"
    with pytest.raises(dtb.UnknownValue) as caught:
        tb.probe_wdl(BEYOND)
    assert caught.value.code == expected["code"] == "too-many-pieces"
    assert caught.value.reason == expected["reason"]
    assert isinstance(caught.value, LookupError)
    for probe in (tb.probe_dtw, tb.line):
        with pytest.raises(dtb.UnknownValue) as caught:
            probe(BEYOND)
        assert caught.value.code == "too-many-pieces" and "more pieces" in caught.value.reason
    moves = tb.probe_moves(BEYOND)
    assert [(m.move, m.value, m.dtw) for m in moves] == [(m["move"], m["value"], m["dtw"]) for m in expected["moves"]]
    assert moves and all(m.value == "unknown" and m.dtw is None for m in moves)


@pytest.fixture(scope="module")
def wdl_only(tmp_path_factory):
    """The .wdl files of the build without its .dtw files."""
    folder = tmp_path_factory.mktemp("wdl-only")
    for name in os.listdir(DB):
        if name.endswith(".wdl"):
            shutil.copy(os.path.join(DB, name), folder)
    return str(folder)


def test_without_dtw_files_distances_are_unknown(tb, wdl_only):
    plain = dtb.Tablebase(wdl_only)
    assert plain.max_pieces == 4 and plain.max_dtw_pieces == 0
    fen = "W:W21:B3,4"
    assert plain.probe_wdl(fen) == "win"
    expected = cli_json("probe", "--db", wdl_only, "--dtw", "--json", fen)[0]
    with pytest.raises(dtb.UnknownValue) as caught:
        plain.probe_dtw(fen)
    assert expected["value"] == "win" and expected["dtw"] is None
    assert caught.value.code == expected["dtw_code"] and caught.value.reason == expected["dtw_reason"]
    with pytest.raises(dtb.UnknownValue):
        plain.line(fen)
    moves = plain.probe_moves(fen)
    assert [(m.move, m.value) for m in moves] == [(m.move, m.value) for m in tb.probe_moves(fen)]
    assert all(m.dtw is None for m in moves)


def test_line_stops_where_a_distance_is_missing(tmp_path):
    # Without KvM.dtw the line of W:W21:B3,4 reaches a king against a man after 27 moves: dtb line
    # prints those and fails (exit 3); the module raises rather than give a line that stops short.
    folder = tmp_path / "no-KvM"
    shutil.copytree(DB, folder)
    (folder / "KvM.dtw").unlink()
    done = cli("line", "--db", str(folder), "W:W21:B3,4", check=False)
    assert done.returncode == 3 and "has no distance to win" in done.stderr
    assert len(done.stdout.splitlines()) == 1 + 27
    partial = dtb.Tablebase(str(folder))
    assert partial.probe_dtw("W:W21:B3,4") == ("win", 33)
    with pytest.raises(dtb.UnknownValue) as caught:
        partial.line("W:W21:B3,4")
    assert caught.value.code == "missing-table" and "KvM.dtw" in caught.value.reason


def test_resident_answers_as_the_files(tb, wdl_only, tmp_path):
    folder = tmp_path / "resident"
    shutil.copytree(wdl_only, folder)
    resident = dtb.Tablebase(str(folder), resident=True)
    assert resident.resident_bytes > 0 and tb.resident_bytes == 0
    shutil.rmtree(folder)  # the files are gone: the values come from memory
    for fen in FENS:
        assert resident.probe_wdl(fen) == tb.probe_wdl(fen), fen


@pytest.mark.parametrize("fen", ["", "hello", "W:W99", "W:W3:B20", "W:W31:B31", "X:W31:B1"])
def test_invalid_fen_is_a_value_error(tb, fen):
    # The command line refuses the same text (exit 1, "error:").
    done = cli("probe", "--db", DB, fen, check=False)
    assert done.returncode == 1 and "error:" in done.stdout
    for probe in (tb.probe_wdl, tb.probe_dtw, tb.probe_moves, tb.line):
        with pytest.raises(ValueError) as caught:
            probe(fen)
        assert done.stdout == f"{fen}\terror: {caught.value}\n"


def test_unusable_folder_is_an_os_error(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    a_file = tmp_path / "file"
    a_file.write_text("not a folder")
    for path in (tmp_path / "missing", empty, a_file):
        assert cli("probe", "--db", str(path), "W:W31:B1", check=False).returncode == 3  # as the command line
        with pytest.raises(OSError):
            dtb.Tablebase(str(path))


def test_option_values_out_of_range(tb):
    # The bounds of dtb probe --cache-mb and dtb adjudicate --search-seconds / --search-memory-mb.
    assert cli("probe", "--db", DB, "--cache-mb", "16777217", "W:W31:B1", check=False).returncode == 2
    for bad in ({"cache_mb": 16777217}, {"max_pieces": -1}):
        with pytest.raises(ValueError):
            dtb.Tablebase(DB, **bad)
    with pytest.raises(TypeError):
        dtb.Tablebase(DB, cache_mb=-1)
    assert dtb.Tablebase(DB, cache_mb=16777216, max_pieces=3).max_pieces == 3
    for bad in ({"search_seconds": -1.0}, {"search_seconds": float("nan")}, {"search_memory_mb": 2**30 + 1}):
        with pytest.raises(ValueError):
            tb.adjudicate("", **bad)


def test_threads_probe_one_tablebase_at_once():
    # A small cache, so that threads evict each other's blocks.
    shared = dtb.Tablebase(DB, cache_mb=1)
    fens = [f"{side}:W{w}:B{b},K{k}" for side in "WB" for w in range(6, 51, 3) for b in range(1, 46, 4)
            for k in range(2, 51, 7) if len({w, b, k}) == 3]
    serial = [(tb_value, shared.probe_dtw(f)) for f in fens for tb_value in [shared.probe_wdl(f)]]
    assert {v for v, _ in serial} == {"win", "draw", "loss"}

    def work(offset):
        order = fens[offset:] + fens[:offset]
        got = {f: (shared.probe_wdl(f), shared.probe_dtw(f)) for f in order}
        return [got[f] for f in fens]

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(work, [0, len(fens) // 4, len(fens) // 2, 3 * len(fens) // 4]))
    assert all(r == serial for r in results)


def test_gil_released_during_a_long_call():
    """Another Python thread runs while a long C++ call is under way (it could not if the call held the GIL)."""
    with open(os.path.join(PDN, "sixteen_move_wins.pdn"), encoding="utf-8") as f:
        games = f.read()
    cold = dtb.Tablebase(DB, cache_mb=0)  # every probe reads and decompresses: a slow call
    copies = 1
    while True:
        text = games * copies
        ticks = []
        stop = threading.Event()

        def count():
            while not stop.is_set():
                ticks.append(time.monotonic())
                time.sleep(0.001)

        counter = threading.Thread(target=count)
        counter.start()
        time.sleep(0.02)
        start = time.monotonic()
        cold.adjudicate(text)
        end = time.monotonic()
        stop.set()
        counter.join()
        if end - start >= 0.4 or copies >= 1024:
            break
        copies *= 2
    assert end - start >= 0.4
    inside = [t for t in ticks if start + 0.1 < t < end - 0.1]
    assert len(inside) >= 3, (len(inside), end - start)  # none at all if the call held the GIL


def test_adjudicate_as_the_command_line(tb):
    for path in (os.path.join(PDN, "sixteen_move_wins.pdn"), os.path.join(SAMPLES, "sample.pdn"),
                 os.path.join(PDN, "malformed.pdn")):
        with open(path, "rb") as f:
            games = tb.adjudicate(f.read(), file_name=path)
        done = cli("adjudicate", "--db", DB, "--json", path, check=False)
        assert done.returncode in (0, 1)
        expected = [json.loads(line) for line in done.stdout.splitlines()]
        assert len(games) == len(expected) > 0
        for got, want in zip(games, expected):
            del want["file"]
            for d in (got, want):
                d.get("search", {}).pop("seconds", None)
            assert got == want


def test_adjudicate_sixteen_move_verdicts(tb):
    # The verdicts tests/adjudicate/cli_sixteen_test.sh expects of these games.
    with open(os.path.join(PDN, "sixteen_move_wins.pdn"), encoding="utf-8") as f:
        text = f.read()
    games = tb.adjudicate(text)
    assert [g["verdict"] for g in games] == [
        "inconsistent", "consistent", "inconsistent", "consistent", "consistent", "consistent"]
    assert [g.get("forced_win") for g in games] == ["yes", "no", "no", "yes", "yes", "no"]
    assert games[0]["explanation"].startswith("after 10... 8-3 white wins in 13 plies")
    # A bound of one position leaves the game that needs a search undecided, and says so.
    bounded = tb.adjudicate(text, search_nodes=1)
    assert any(g.get("search", {}).get("budget_exceeded") for g in bounded)
    assert tb.adjudicate("") == []
