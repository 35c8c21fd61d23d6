#!/usr/bin/env bash
# `cmake --install --component python` (into a staging folder, DESTDIR) puts the module in the
# folder DTB_PYTHON_INSTALL_DIR names; the interpreter imports it from there; and for the prefixes
# /usr/local (the default) and /usr that folder is on the interpreter's own path, so a real install
# needs no PYTHONPATH.
# Usage: install_test.sh PYTHON BUILD_DIR INSTALL_PREFIX PYTHON_INSTALL_DIR
set -u
python=$1 build=$2 prefix=$3 dir=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
work=$tmp/stage
fail() { echo "FAIL: $*"; exit 1; }
case $dir in /*) target=$dir ;; *) target=$prefix/$dir ;; esac

DESTDIR=$work cmake --install "$build" --component python >"$tmp/log" || fail "cmake --install: $(cat "$tmp/log")"
ls "$work$target"/dtb.*.so >/dev/null 2>&1 || fail "no dtb.*.so in $target: $(find "$work" -type f)"
[ "$(find "$work" -type f | wc -l)" = 1 ] || fail "the python component installs more than the module: $(find "$work" -type f)"
loaded=$(cd / && PYTHONPATH=$work$target "$python" -c 'import dtb; print(dtb.__file__)') || fail "import dtb"
[ "${loaded#"$work$target"/}" != "$loaded" ] || fail "imported $loaded, not the installed module"
if [ "$prefix" = /usr/local ] || [ "$prefix" = /usr ]; then
  "$python" - "$target" <<'PY' || fail "$target is not on the path of $python"
import sys
assert sys.argv[1] in sys.path, (sys.argv[1], sys.path)
PY
fi
echo "python install: $target"
