#include "tools/commands.hpp"

namespace dtb::cli {

void add_probe_commands(CLI::App&, Runner&) {}

}  // namespace dtb::cli
