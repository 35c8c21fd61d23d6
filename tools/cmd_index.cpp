// `dtb materials`: the materials of up to N pieces in build order, with their sizes.
#include <iostream>

#include "index/position_index.hpp"
#include "tools/commands.hpp"

namespace dtb::cli {
namespace {

int run_materials(int pieces, int max_per_side) {
    std::cout << "material\twhite_men\twhite_kings\tblack_men\tblack_kings\tpositions\n";
    for (const Material& m : materials_in_build_order(pieces, max_per_side))
        std::cout << m.name() << '\t' << m.white_men << '\t' << m.white_kings << '\t' << m.black_men << '\t'
                  << m.black_kings << '\t' << PositionIndex(m).size() << '\n';
    return kExitOk;
}

}  // namespace

void add_index_commands(CLI::App& app, Runner& run) {
    auto* cmd = app.add_subcommand("materials", "List the materials of up to N pieces in build order (TSV)");
    auto pieces = std::make_shared<int>(4);
    auto per_side = std::make_shared<int>(20);
    cmd->add_option("-n,--pieces", *pieces, "Largest number of pieces")->required()->check(CLI::Range(2, 40));
    cmd->add_option("--max-per-side", *per_side, "Largest number of pieces per side")
        ->check(CLI::Range(1, 20))
        ->capture_default_str();
    cmd->callback([&run, pieces, per_side] { run = [pieces, per_side] { return run_materials(*pieces, *per_side); }; });
}

}  // namespace dtb::cli
