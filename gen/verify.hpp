// `dtb verify`: every checksum, then every non-capture position's value against its successors, and
// where .dtw files exist, every won or lost non-capture position's distance to win: 1 + the
// shortest win among its successors, or 1 + the longest loss.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "gen/pair_layout.hpp"
#include "index/material.hpp"
#include "probe/format.hpp"

namespace dtb {

struct Inconsistency {
    std::string fen;
    Value stored = Value::Unknown;
    Value implied = Value::Unknown;
    // For a distance-to-win mismatch (the values agree): the stored and the implied DTW.
    std::optional<int> stored_dtw, implied_dtw;
};

struct VerifyReport {
    std::vector<std::string> errors;           // unreadable, corrupt or missing files
    std::vector<Inconsistency> inconsistencies;  // the first ones found
    std::uint64_t inconsistency_count = 0;
    std::uint64_t positions_checked = 0;
    std::size_t materials_skipped = 0;  // found in the record, checked by an earlier run
    bool ok() const { return errors.empty() && inconsistency_count == 0; }
};

// Materials of the database files in `dir`, in build order.
std::vector<Material> materials_in_folder(const std::filesystem::path& dir);

// Checks the given materials (all of `dir` when empty). Progress lines go to `log`. Throws
// std::runtime_error when `dir` is not a folder, or holds no database file and `only` is empty.
// With `slice`, only the positions of that slice of the pair are checked (gen/slices.hpp, so that
// a large pair's check can be split into tasks; a part of a level needs `only` to be the pair,
// its first material first, as the builder lays it out).
// With a `record` file, a check of hours can be stopped and resumed: each material found sound is
// appended to it (synced) with the seconds its check took and a fingerprint of every file that
// check read (name, size, modification time), and a material recorded with the fingerprint its
// files have now is not checked again. Throws std::runtime_error when the record cannot be read or
// written.
VerifyReport verify_folder(const std::filesystem::path& dir, const std::vector<Material>& only, std::ostream& log,
                           std::size_t max_reported = 10, std::optional<Slice> slice = std::nullopt,
                           const std::filesystem::path& record = {});

}  // namespace dtb
