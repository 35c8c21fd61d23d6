#!/usr/bin/env bash
# The explorer page of dtb serve in headless Chromium (tests/serve/browser_test.py): starts the server
# on a free loopback port, runs the browser test against it, stops the server by its PID.
# Usage: browser_test.sh DTB DB_DIR SCREENSHOT.png   (DB_DIR: a 2-4 piece build with .dtw files)
set -u
dtb=$1 db=$2 screenshot=$3
work=$(mktemp -d)
"$dtb" serve --db "$db" --bind 127.0.0.1 --port 0 --threads 4 >"$work/serve.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$work"' EXIT
url=
for _ in $(seq 100); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/' "$work/serve.log")
  [ -n "$url" ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
[ -n "$url" ] || { echo "FAIL: dtb serve did not start: $(cat "$work/serve.log")"; exit 1; }
# Debian's python3-selenium is seen by /usr/bin/python3 only (not by a python3 of pyenv, say).
/usr/bin/python3 "$(dirname "$0")/browser_test.py" "$url" "$dtb" "$db" "$screenshot"
