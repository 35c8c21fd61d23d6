# Sourced by the benchmark scripts. ensure_databases DTB DIR PIECES SUFFIX CALLER [GEN_OPTION ...]
# builds the 2-PIECES databases into DIR with `dtb gen` (which resumes) unless DIR already holds one
# file ending in SUFFIX (.wdl or .dtw) for every material; CALLER names the script in its message.
ensure_databases() {
  local dtb=$1 dir=$2 pieces=$3 suffix=$4 caller=$5
  shift 5
  local expected present
  expected=$("$dtb" materials --pieces "$pieces" | tail -n +2 | wc -l)
  present=$(find "$dir" -maxdepth 1 -name "*$suffix" 2>/dev/null | wc -l)
  if ((present < expected)); then
    echo "$caller: $dir holds $present of $expected $suffix files; generating 2-$pieces pieces (this takes a while)"
    "$dtb" gen --pieces "$pieces" --out "$dir" "$@"
  fi
}
