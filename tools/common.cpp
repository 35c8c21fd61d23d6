// What several subcommands share: checks of options, run by CLI11 while parsing the command line so
// that a bad value is refused (exit code 2) before any work starts, and the check that a database
// folder holds databases.
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "probe/format.hpp"
#include "probe/tablebase.hpp"
#include "tools/commands.hpp"

namespace dtb::cli {
namespace {

constexpr double kMaxMemoryGib = 1 << 20;                  // 1 PiB

// The whole text as a number of type T, or nothing (no trailing characters, no sign for unsigned).
template <typename T>
bool parse_whole(const std::string& text, T& out) {
    if (text.empty() || (std::is_unsigned_v<T> && text.find('-') != std::string::npos)) return false;
    return CLI::detail::lexical_cast(text, out);
}

}  // namespace

std::vector<Material> parse_materials(const std::vector<std::string>& names) {
    std::vector<Material> out;
    for (const std::string& name : names) {
        const auto m = parse_material(name);
        if (!m) throw std::invalid_argument("unknown material name '" + name + "' (expected e.g. KMvK, MMvM)");
        out.push_back(*m);
    }
    return out;
}

CLI::Option* add_cache_mb_option(CLI::App* cmd, std::size_t& mb, const std::string& description) {
    static const CLI::Validator check(
        [](std::string& text) -> std::string {
            std::size_t value = 0;
            if (!parse_whole(text, value) || value > kMaxCacheMb)
                return "must be a whole number of MiB from 0 to " + std::to_string(kMaxCacheMb) + " (16 TiB), not " +
                       text;
            return {};
        },
        "MiB in [0, " + std::to_string(kMaxCacheMb) + "]");
    return cmd->add_option("--cache-mb", mb, description)->check(check);
}

const CLI::Validator& memory_gib_check() {
    static const CLI::Validator check(
        [](std::string& text) -> std::string {
            double value = 0;
            if (!parse_whole(text, value) || !std::isfinite(value) || value < 0 || value > kMaxMemoryGib)
                return "must be a finite number of GiB from 0 to " +
                       std::to_string(static_cast<long>(kMaxMemoryGib)) + ", not " + text;
            return {};
        },
        "GiB in [0, 1048576]");
    return check;
}

const CLI::Validator& block_positions_check() {
    static const CLI::Validator check(
        [](std::string& text) -> std::string {
            std::uint64_t value = 0;
            if (!parse_whole(text, value)) return "must be a whole number, not " + text;
            if (const char* problem = format::block_size_problem(value, format::FileKind::Wdl))
                return std::string(problem) + ", not " + text;
            return {};
        },
        "a multiple of 5 up to 2^24");
    return check;
}

void require_databases(const Tablebase& tb, bool dtw) {
    const std::string dir = tb.directory().string();
    if (tb.max_pieces() == 0) throw std::runtime_error("no databases (*.wdl files) in " + dir);
    if (dtw && tb.max_dtw_pieces() == 0)
        throw std::runtime_error("no DTW files (*.dtw) in " + dir + " (dtb gen --dtw writes them)");
}

}  // namespace dtb::cli
