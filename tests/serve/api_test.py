#!/usr/bin/env python3
"""dtb serve end to end on the loopback interface: the JSON API against `dtb probe` and `dtb line`,
refused requests (400, 404, 413, 414), many clients at once, start-up errors and clean shutdown.

Usage: api_test.py DTB DB_DIR   (DB_DIR: a 2-4 piece build with .dtw files)"""
import concurrent.futures
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

DTB, DB = sys.argv[1], sys.argv[2]


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


def start(*args):
    """Starts dtb serve on a free port; returns the process and its URL (from its first line)."""
    proc = subprocess.Popen([DTB, "serve", "--db", DB, "--port", "0", *args], stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if "listening on http://127.0.0.1:" not in line:
        proc.kill()
        fail(f"first line: {line!r}")
    return proc, line.split("listening on ")[1].split()[0]


def get(url, data=None):
    """(status, parsed JSON body) of a request."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        body = e.read()
        return e.code, json.loads(body) if body else None


def api(url, endpoint, fen):
    return get(url + "api/" + endpoint + "?fen=" + urllib.parse.quote(fen))


def cli(*args):
    return subprocess.run([DTB, *args], capture_output=True, text=True, timeout=20)


def check_probe(url, fen):
    status, body = api(url, "probe", fen)
    if status != 200:
        fail(f"{fen}: status {status}")
    want = json.loads(cli("probe", "--db", DB, "--moves", "--dtw", "--json", fen).stdout)
    if body["value"] != want["value"] or body["dtw"] != want["dtw"]:
        fail(f"{fen}: {body['value']} {body['dtw']}, dtb probe says {want['value']} {want['dtw']}")
    got_moves = [(m["move"], m["value"], m["dtw"]) for m in body["moves"]]
    want_moves = [(m["move"], m["value"], m["dtw"]) for m in want["moves"]]
    if got_moves != want_moves:
        fail(f"{fen}: moves {got_moves}, dtb probe says {want_moves}")
    for m in body["moves"]:
        after = cli("moves", fen).stdout.splitlines()
        if f"{m['move']}\t{m['fen']}" not in after:
            fail(f"{fen}: move {m['move']} -> {m['fen']} is not what dtb moves says: {after}")
    return body


def main():
    proc, url = start("--threads", "4")
    try:
        fens = ["W:W33:B2", "W:WK46:BK5", "B:W18,24,K10:B12", "W:WK5:B14,24,29,43", "W:W28:B23", "B:WK1:BK50"]
        for fen in fens:
            check_probe(url, fen)
        body = check_probe(url, "W:W33:B2")
        if body["board"] != {"white_men": [33], "white_kings": [], "black_men": [2], "black_kings": []} \
                or body["side"] != "white" or body["moves"][0]["from"] != 33 or body["moves"][0]["to"] != 29:
            fail(f"board of W:W33:B2: {body}")

        # The optimal line is dtb line's.
        status, line = api(url, "line", "W:W33:B2")
        want = cli("line", "--db", DB, "W:W33:B2").stdout.splitlines()
        got = [f"{m['move']}\t{m['value']}\t{m['dtw']}" for m in line["line"]]
        if status != 200 or want[0] != "W:W33:B2\twin\t17" or got != want[1:] or line["dtw"] != 17:
            fail(f"line: {status} {got} / {want}")
        status, line = api(url, "line", "W:WK1:BK50")
        if status != 200 or line["value"] != "draw" or line["line"]:
            fail(f"line of a draw: {status} {line}")

        # Refusals: an invalid FEN, a missing parameter, beyond the databases, unknown paths,
        # oversized requests.
        status, body = api(url, "probe", "W:W99")
        if status != 400 or "square 99" not in body.get("error", ""):
            fail(f"invalid FEN: {status} {body}")
        status, body = api(url, "line", "W:W3:B20")
        if status != 400 or "error" not in body:
            fail(f"invalid FEN (line): {status} {body}")
        status, body = get(url + "api/probe")
        if status != 400 or "fen" not in body.get("error", ""):
            fail(f"no fen: {status} {body}")
        status, body = api(url, "probe", "W:W31,32,33:B1,2")
        if status != 200 or body["value"] != "unknown" or body["code"] != "too-many-pieces" or not body["reason"]:
            fail(f"beyond the databases: {status} {body}")
        for path in ["../../etc/passwd", "%2e%2e/%2e%2e/etc/passwd", "etc/passwd", "index.htm", "api/nothing",
                     "CMakeLists.txt", "..%2fCMakeLists.txt"]:
            status, _ = get(url + path)
            if status != 404:
                fail(f"/{path}: status {status}, expected 404")
        status, _ = get(url + "api/probe?fen=" + "a" * 9000)
        if status != 414:
            fail(f"long request line: status {status}, expected 414")
        status, _ = get(url + "api/probe?fen=W:W33:B2", data=b"x" * 100_000)
        if status != 413:
            fail(f"large body: status {status}, expected 413")
        status, body = get(url + "api/health")
        if status != 200 or body != {"status": "ok", "max_pieces": 4, "max_dtw_pieces": 4, "materials": 41}:
            fail(f"health: {status} {body}")
        for page in ["", "?fen=W:W33:B2", "explorer.js", "explorer.css"]:
            with urllib.request.urlopen(url + page, timeout=10) as r:
                if r.status != 200 or len(r.read()) < 100:
                    fail(f"/{page}: not served")

        # Many clients at once: every answer equals the one a single client got.
        expected = {fen: api(url, "probe", fen) for fen in fens}
        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(lambda i: (fens[i % len(fens)], api(url, "probe", fens[i % len(fens)])), range(400)))
        if any(answer != expected[fen] for fen, answer in answers):
            fail("concurrent answers differ from single-client ones")

        # Answers on a keep-alive connection are not held back: before TCP_NODELAY each one waited
        # 40 ms for the client's delayed ACK (Nagle's algorithm), 50 of them two seconds.
        host, port = url[len("http://"):].strip("/").split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        started = time.monotonic()
        for _ in range(50):
            connection.request("GET", "/api/probe?fen=W:W33,K46:BK5,16")
            response = connection.getresponse()
            if response.status != 200 or not response.read():
                fail("keep-alive: no answer")
        seconds = time.monotonic() - started
        connection.close()
        if seconds > 0.8:
            fail(f"50 requests on one keep-alive connection took {seconds:.2f} s (delayed ACKs?)")

        # A second server on the same port: a clear message, exit 3.
        port = url.rsplit(":", 1)[1].strip("/")
        second = cli("serve", "--db", DB, "--port", port)
        if second.returncode != 3 or "cannot listen on http://127.0.0.1:" + port not in second.stderr \
                or "in use" not in second.stderr:
            fail(f"port in use: exit {second.returncode}, {second.stderr!r}")
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=10)
    if code != 0:
        fail(f"SIGTERM: exit {code}")
    proc, url = start()
    proc.send_signal(signal.SIGINT)
    if proc.wait(timeout=10) != 0:
        fail("SIGINT: exit code")

    # Start-up refusals.
    bad = cli("serve", "--db", DB, "--bind", "example.org", "--port", "0")
    if bad.returncode != 2 or "--bind" not in bad.stderr:
        fail(f"bad address: exit {bad.returncode}, {bad.stderr!r}")
    bad = cli("serve", "--db", DB, "--port", "70000")
    if bad.returncode != 2:
        fail(f"bad port: exit {bad.returncode}")
    with tempfile.TemporaryDirectory() as empty:
        probe_code = cli("probe", "--db", empty, "W:W33:B2").returncode
        bad = cli("serve", "--db", empty, "--port", "0")
        if bad.returncode != probe_code or probe_code != 3 or "no databases" not in bad.stderr:
            fail(f"empty folder: exit {bad.returncode} (dtb probe: {probe_code}), {bad.stderr!r}")
    print("dtb serve: all checks passed")


main()
