#!/usr/bin/env bash
# Generator benchmark on one material pair, for comparing builds of dtb side by side: solves
# MATERIAL and its mirror with each given dtb binary, ROUNDS times, the binaries interleaved within
# each round (a shared machine drifts; compare medians), and checks that every binary wrote the same
# bytes.
#
#   scripts/bench-gen-material.sh DB MATERIAL NAME=DTB [NAME=DTB ...]
#
#   DB        a database folder holding every material MATERIAL needs (e.g. a 2-5 build for a
#             5-piece material); it is only read: the runs write into a scratch folder
#   ROUNDS    rounds (default 3)
#   THREADS   worker threads (default 1)
#   DTW       1: time the DTW pass instead (DB must hold the WDL files of MATERIAL too, and the
#             DTW files of what it needs: a 2-5 build with --dtw for a 5-piece material);
#             both: build the pair's WDL and DTW files (DB as for 1), timed by the whole run's
#             wall clock (tables loaded included), both files compared
#
# Prints one line per run (round, name, solve seconds as dtb gen reports them, peak resident kB of
# the whole run as /usr/bin/time measures it) and the medians of each binary.
set -euo pipefail

if [[ $# -lt 3 ]]; then
  sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
db=$(cd "$1" && pwd)
material=$2
shift 2
rounds=${ROUNDS:-3}
threads=${THREADS:-1}
exts=(wdl)
extra=()
case "${DTW:-0}" in
  0) ;;
  1) exts=(dtw); extra=(--dtw) ;;
  both) exts=(wdl dtw); extra=(--dtw) ;;
  *) echo "bench-gen-material: DTW must be 0, 1 or both" >&2; exit 2 ;;
esac
white=${material%v*}
black=${material#*v}
mirror="${black}v${white}"
pieces=$(( ${#material} - 1 ))

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# Whether file name $1 is one the runs write.
written() {
  local ext
  for ext in "${exts[@]}"; do
    [[ "$1" == "$material.$ext" || "$1" == "$mirror.$ext" ]] && return 0
  done
  return 1
}
for f in "$db"/*.wdl "$db"/*.dtw; do
  [[ -e "$f" ]] || continue
  name=$(basename "$f")
  written "$name" || ln -s "$f" "$scratch/"
done

declare -A seconds peaks
for round in $(seq "$rounds"); do
  for spec in "$@"; do
    name=${spec%%=*}
    dtb=${spec#*=}
    for ext in "${exts[@]}"; do rm -f "$scratch/$material.$ext" "$scratch/$mirror.$ext"; done
    log=$(/usr/bin/time -f '%e %M' -o "$scratch/peak" "$dtb" gen --pieces "$pieces" --material "$material" --threads "$threads" "${extra[@]}" --out "$scratch" 2>&1) || {
      echo "bench-gen-material: $name failed:" >&2
      echo "$log" | tail -5 >&2
      exit 1
    }
    # The summary line of the pair's last file: its seconds count the whole pair.
    s=$(echo "$log" | tr '\r' '\n' | awk '$2 == "positions" { s = $13 } $2 == "dtw" { s = $6 } END { print s }')
    read -r wall peak < <(tail -1 "$scratch/peak")
    [[ ${#exts[@]} == 2 ]] && s=$wall
    echo "$round	$name	$s	$peak"
    seconds[$name]+="$s "
    peaks[$name]+="$peak "
    for ext in "${exts[@]}"; do
      for side in "$material" "$mirror"; do
        if [[ -f "$scratch/$side.$ext.first" ]]; then
          cmp -s "$scratch/$side.$ext.first" "$scratch/$side.$ext" || { echo "bench-gen-material: $name wrote another $side.$ext" >&2; exit 1; }
        else
          cp "$scratch/$side.$ext" "$scratch/$side.$ext.first"
        fi
      done
    done
  done
done
median() {
  tr ' ' '\n' | sort -n | awk 'NF { v[++c] = $1 } END { printf "%.1f", c % 2 ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2 }'
}
for spec in "$@"; do
  name=${spec%%=*}
  echo "median	$name	$(echo "${seconds[$name]}" | median)	$(echo "${peaks[$name]}" | median)"
done
