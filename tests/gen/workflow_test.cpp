// dtb plan's tasks without building anything: every material once, inputs made by earlier tasks,
// the grouping of small pairs, and plan.tsv read back as written.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <unistd.h>

#include "gen/builder.hpp"
#include "gen/pair_layout.hpp"
#include "gen/slices.hpp"
#include "gen/workflow.hpp"
#include "index/position_index.hpp"
#include "probe/format.hpp"

namespace dtb {
namespace {

namespace fs = std::filesystem;

Material named(const char* name) { return *parse_material(name); }

WorkflowPlan plan_of(int pieces, int group_pieces, bool dtw = false) {
    WorkflowOptions o;
    o.max_pieces = pieces;
    o.group_pieces = group_pieces;
    o.dtw = dtw;
    return make_workflow_plan(o);
}

TEST(Workflow, EveryMaterialIsBuiltByExactlyOneTask) {
    const WorkflowPlan plan = plan_of(4, 3);
    std::multiset<Material> built;
    std::set<std::string> outputs;
    for (const WorkflowTask& t : plan.tasks)
        for (const Material& m : t.materials) {
            built.insert(m);
            outputs.insert(format::wdl_file_name(m));
        }
    const auto all = materials_in_build_order(4);
    EXPECT_EQ(built.size(), all.size());
    for (const Material& m : all) EXPECT_EQ(built.count(m), 1u) << m.name();
    for (const WorkflowTask& t : plan.tasks)
        for (const std::string& f : t.outputs) EXPECT_TRUE(outputs.count(f)) << f;
}

TEST(Workflow, EveryInputIsWrittenByAnEarlierTask) {
    for (const bool dtw : {false, true}) {
        const WorkflowPlan plan = plan_of(5, 3, dtw);
        std::set<std::string> written;
        for (const WorkflowTask& t : plan.tasks) {
            for (const std::string& f : t.inputs) EXPECT_TRUE(written.count(f)) << t.id << " reads " << f;
            for (const std::string& f : t.outputs) EXPECT_TRUE(written.insert(f).second) << f << " written twice";
        }
    }
}

// Worked out by hand (as in the memory plan's test): from KMvK white only promotes (KKvK, black to
// move: KvKK); from KvKM white takes the man (KvK) or the king (MvK, black's man alone).
TEST(Workflow, APairTaskReadsWhatBothSidesReachInOneMove) {
    const WorkflowPlan plan = plan_of(3, 2, true);
    const auto pair = std::find_if(plan.tasks.begin(), plan.tasks.end(), [](const WorkflowTask& t) {
        return std::find(t.materials.begin(), t.materials.end(), named("KMvK")) != t.materials.end();
    });
    ASSERT_NE(pair, plan.tasks.end());
    const WorkflowTask* t = plan.find(pair->id);
    ASSERT_EQ(t, &*pair);
    EXPECT_EQ(std::set<Material>(t->materials.begin(), t->materials.end()), (std::set<Material>{named("KMvK"), named("KvKM")}));
    EXPECT_EQ(std::set<std::string>(t->inputs.begin(), t->inputs.end()),
              (std::set<std::string>{"KvK.wdl", "KvK.dtw", "KvKK.wdl", "KvKK.dtw", "MvK.wdl", "MvK.dtw"}));
    EXPECT_EQ(std::set<std::string>(t->outputs.begin(), t->outputs.end()),
              (std::set<std::string>{"KMvK.wdl", "KMvK.dtw", "KvKM.wdl", "KvKM.dtw"}));
    EXPECT_GT(t->memory_bytes, 0u);
    EXPECT_GT(t->cpu_seconds, 0);
}

// 4 pieces, two a side at least one: the pairs of more than three pieces are their own tasks, the
// rest one group; counted independently of the planner from the list of materials.
TEST(Workflow, SmallPairsFormOneTaskTheOthersOneEach) {
    const WorkflowPlan plan = plan_of(4, 3);
    std::set<std::set<Material>> four_piece_pairs;
    for (const Material& m : materials_in_build_order(4))
        if (m.pieces() == 4) four_piece_pairs.insert({m, m.mirror()});
    ASSERT_EQ(plan.tasks.size(), four_piece_pairs.size() + 1);
    EXPECT_EQ(plan.tasks.front().id, "upto3");
    for (const Material& m : plan.tasks.front().materials) EXPECT_LE(m.pieces(), 3) << m.name();
    EXPECT_TRUE(plan.tasks.front().inputs.empty());
    for (std::size_t i = 1; i < plan.tasks.size(); ++i) {
        const WorkflowTask& t = plan.tasks[i];
        EXPECT_EQ(t.id, t.materials.front().name());
        EXPECT_TRUE(four_piece_pairs.count({t.materials.front(), t.materials.back()})) << t.id;
    }
    EXPECT_EQ(plan_of(4, 4).tasks.size(), 1u);
}

// Under a budget, a pair whose task would pass it is cut into slice tasks (then one writing its
// files), the others stay whole, and no task is estimated above the budget: a kings-only pair,
// one subgame that cannot be sliced, is solved in symmetry classes, without keeping its values
// where they do not fit.
TEST(Workflow, ABudgetSlicesThePairsThatPassItAndBoundsEveryOtherTask) {
    WorkflowOptions o;
    o.max_pieces = 6;
    o.memory_bytes = std::uint64_t{1} << 30;
    const WorkflowPlan plan = make_workflow_plan(o);
    WorkflowOptions unbounded = o;
    unbounded.memory_bytes = 0;
    const WorkflowPlan whole = make_workflow_plan(unbounded);
    for (const WorkflowTask& t : whole.tasks) {
        const bool over = t.memory_bytes > o.memory_bytes;
        const bool kings_only = t.materials.front().men() == 0;
        EXPECT_EQ(plan.find(t.id + ".s1") != nullptr, over && !kings_only) << t.id;
        ASSERT_NE(plan.find(t.id), nullptr) << t.id;  // the pair's task, sliced or not
        if (plan.find(t.id + ".s1")) {
            const WorkflowTask& writer = *plan.find(t.id);
            EXPECT_EQ(slice_step_of_task(writer), BuildOptions::kWriteFromSlices) << t.id;
            EXPECT_EQ(static_cast<std::size_t>(plan.slices_of(writer)), writer.inputs.size()) << t.id;
            EXPECT_EQ(slice_step_of_task(*plan.find(t.id + ".s1")), 1) << t.id;
        }
    }
    for (const WorkflowTask& t : plan.tasks) EXPECT_LE(t.memory_bytes, o.memory_bytes) << t.id;
    // Kings-only pairs are solved in symmetry classes, which were measured faster than cells, with
    // their values kept: at 6 pieces they fit the budget whole. Under a budget just below one's
    // estimate its values are not kept, for the same CPU.
    const auto pair_task = [](const WorkflowPlan& p, const char* material) -> const WorkflowTask* {
        for (const WorkflowTask& t : p.tasks)
            for (const Material& m : t.materials)
                if (m.name() == material) return &t;
        return nullptr;
    };
    const WorkflowTask* kings = pair_task(whole, "KKvKKKK");
    const WorkflowTask* with_a_man = pair_task(whole, "KKvKKKM");
    ASSERT_NE(kings, nullptr);
    ASSERT_NE(with_a_man, nullptr);
    EXPECT_EQ(pair_task(plan, "KKvKKKK")->memory_bytes, kings->memory_bytes);
    EXPECT_LT(kings->cpu_seconds / static_cast<double>(kings->positions),
              with_a_man->cpu_seconds / static_cast<double>(with_a_man->positions));
    WorkflowOptions tight = o;
    tight.memory_bytes = kings->memory_bytes - 1;
    const WorkflowPlan tight_plan = make_workflow_plan(tight);
    const WorkflowTask* compact = pair_task(tight_plan, "KKvKKKK");
    ASSERT_NE(compact, nullptr);
    EXPECT_LT(compact->memory_bytes, tight.memory_bytes);
    EXPECT_EQ(compact->cpu_seconds, kings->cpu_seconds);
    EXPECT_NE(plan.find("KMvKKMM.s2"), nullptr);  // the largest 6-piece pair
}

// A slice task holds a value and a capture bit for each of its positions (3/8 of a byte) and, as
// its boundary, at most the values of the level above it (2 bits a position): from slice to
// slice its estimate moves by that much, whatever else the task holds. At 8 pieces a pair's solver
// bytes times a slice's positions pass 2^64; that product once wrapped, and every slice of the
// largest pairs got about the same estimate.
TEST(Workflow, ASliceTaskIsEstimatedAtItsValuesAndTheLevelAboveIt) {
    const Material m = named("KKMvKKKMM");
    WorkflowOptions o;
    o.max_pieces = 8;
    o.only = {m};
    o.slices = 12;
    const WorkflowPlan plan = make_workflow_plan(o);
    const std::vector<Slice> slices = pair_slices(m, o.slices);
    const std::vector<std::uint64_t> by_level = pair_positions_by_level(m);
    ASSERT_EQ(slices.size(), 12u);
    const auto held = [&](const Slice& s) {
        std::uint64_t positions = 0;
        for (int l = s.levels.lowest; l <= s.levels.highest; ++l) positions += by_level[static_cast<std::size_t>(l)];
        const std::size_t above = static_cast<std::size_t>(s.levels.highest) + 1;
        return static_cast<double>(positions) * 3 / 8 + (above < by_level.size() ? static_cast<double>(by_level[above]) / 4 : 0.0);
    };
    const WorkflowTask* first = plan.find("KKMvKKKMM.s1");
    ASSERT_NE(first, nullptr);
    for (std::size_t k = 0; k < slices.size(); ++k) {
        const WorkflowTask* t = plan.find("KKMvKKKMM.s" + std::to_string(k + 1));
        ASSERT_NE(t, nullptr) << k;
        const double more_bytes = static_cast<double>(t->memory_bytes) - static_cast<double>(first->memory_bytes);
        EXPECT_NEAR(more_bytes, held(slices[k]) - held(slices[0]), 1e-6 * static_cast<double>(first->memory_bytes)) << t->id;
    }
}

// The longest chain of a plan drawn by hand: a (1 s) then b (2 s) beside c (5 s), then d (1 s)
// reading b's and c's files, and e (4 s) alone.
TEST(Workflow, TheLongestChainOfATaskWaitsForItsSlowestInput) {
    WorkflowPlan plan;
    const auto task = [](const char* id, std::vector<std::string> inputs, double seconds) {
        WorkflowTask t;
        t.id = id;
        t.inputs = std::move(inputs);
        t.outputs = {std::string(id) + ".wdl"};
        t.cpu_seconds = seconds;
        return t;
    };
    plan.tasks = {task("a", {}, 1), task("b", {"a.wdl"}, 2), task("c", {}, 5), task("d", {"b.wdl", "c.wdl"}, 1),
                  task("e", {}, 4)};
    EXPECT_EQ(longest_chains(plan), (std::vector<double>{1, 3, 5, 6, 4}));
}

// A sliced pair's task waits for its slices one after the other; the estimate's rows count every
// task once and the positions of every material once (PositionIndex, not the plan's own sums).
TEST(Workflow, TheEstimateCountsTasksPositionsAndChains) {
    WorkflowOptions o;
    o.max_pieces = 4;
    o.group_pieces = 3;
    o.slices = 3;
    const WorkflowPlan plan = make_workflow_plan(o);
    const std::vector<double> chain = longest_chains(plan);
    double slices = 0, total = 0;
    for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
        total += plan.tasks[i].cpu_seconds;
        EXPECT_LE(chain[i], total + 1e-9) << plan.tasks[i].id;
        EXPECT_GE(chain[i], plan.tasks[i].cpu_seconds) << plan.tasks[i].id;
        if (plan.tasks[i].id.rfind("KvKKM.s", 0) == 0) slices += plan.tasks[i].cpu_seconds;
        if (plan.tasks[i].id == "KvKKM") {
            ASSERT_GT(slices, 0);
            EXPECT_GE(chain[i], slices + plan.tasks[i].cpu_seconds - 1e-9);
        }
    }

    std::ostringstream out;
    write_estimate(plan, out);
    std::istringstream in(out.str());
    std::string header;
    std::getline(in, header);
    EXPECT_EQ(header, "pieces\ttasks\tpositions\tcpu_hours\tchain_cpu_hours\tbytes_on_disk\tlargest_task_gib");
    std::map<int, double> positions;  // 2-3 pieces are one group task, counted at 3
    for (const Material& m : materials_in_build_order(4))
        positions[std::max(3, m.pieces())] += static_cast<double>(PositionIndex(m).size());
    int rows = 0;
    for (int pieces, tasks; in >> pieces >> tasks; ++rows) {
        double row_positions, rest;
        in >> row_positions >> rest >> rest >> rest >> rest;
        EXPECT_EQ(tasks, std::count_if(plan.tasks.begin(), plan.tasks.end(),
                                       [&](const WorkflowTask& t) { return t.pieces() == pieces; }));
        EXPECT_NEAR(row_positions, positions[pieces], positions[pieces] * 1e-2) << pieces;  // printed to 3 digits
    }
    EXPECT_EQ(rows, 2);
}

// n choose k, computed here (not the index's table) for counts checked against the index.
std::uint64_t choose(std::uint64_t n, std::uint64_t k) {
    std::uint64_t r = 1;
    for (std::uint64_t i = 1; i <= k; ++i) r = r * (n - k + i) / i;
    return r;
}

// The DTW solver numbers a subgame's positions in 32 bits. At 8 pieces KKKvKKKKM and KKKKvKKKM,
// one man among seven kings, pass that: named (with their count, here from the binomials: the
// kings on the 49 squares the man leaves), and a build of their distances refused by dtb gen
// before any work, not solved wrong. Their values (the WDL solver numbers positions in 64 bits)
// and the pairs of eight men (configurations numbered in 64 bits) are not refused.
TEST(Workflow, PairsBeyondTheSolversNumberingAreRefusedBeforeAnyWork) {
    // KKKvKKKKM: three white kings, then four black ones; its mirror KKKKMvKKK: four, then three.
    const std::uint64_t kings = choose(49, 3) * choose(46, 4) + choose(49, 4) * choose(45, 3);
    const std::string reason = unbuildable_reason(named("KKKvKKKKM"), true);
    EXPECT_NE(reason.find(std::to_string(kings) + " king placements"), std::string::npos) << reason;
    EXPECT_NE(unbuildable_reason(named("KKKKvKKKM"), true), "");
    EXPECT_EQ(unbuildable_reason(named("KKKvKKKKM"), false), "");
    EXPECT_EQ(unbuildable_reason(named("KMvKKMM"), true), "");
    EXPECT_EQ(unbuildable_reason(named("MMMMvMMMM"), false), "");
    EXPECT_EQ(unbuildable_reason(named("MMMMvMMMM"), true), "");

    BuildOptions o;
    o.dir = fs::temp_directory_path() / ("dtb-too-large-" + std::to_string(::getpid()));
    o.max_pieces = 8;
    o.dtw = true;
    o.only = {named("KKKvKKKKM")};
    std::ostringstream log;
    EXPECT_THROW(build(o, log), std::invalid_argument);
    EXPECT_FALSE(fs::exists(o.dir));
}

// The pair of eight men has more configurations than 32 bits number (the count from the
// binomials: j white men on the 40 squares both sides' men can stand on): its subgames past 2^32
// are laid out by their 64-bit numbers, and their lists keep such numbers.
TEST(Workflow, PairsOfEightMenNumberTheirConfigurationsIn64Bits) {
    std::uint64_t configs = 0;
    for (std::uint64_t j = 0; j <= 4; ++j) configs += choose(40, j) * choose(5, 4 - j) * choose(45 - j, 4);
    const PairLayout layout(named("MMMMvMMMM"));
    ASSERT_EQ(layout.index(0).men_configs(), configs);
    ASSERT_GT(configs, std::uint64_t{1} << 32);
    for (const std::uint64_t c : {(std::uint64_t{1} << 32) + 12345, configs - 1, configs / 2 + 7}) {
        const Subgame g = layout.subgame(c);
        EXPECT_EQ(g.blocks[0].base, c);  // one position a configuration
        EXPECT_EQ(layout.index(0).men_index(g.blocks[0].men), c);
        if (g.block_count == 2) {  // the partner: c seen from the other side, its own flip back
            EXPECT_EQ(layout.index(g.blocks[1].side).men_index(g.blocks[1].men), g.blocks[1].base);
            EXPECT_EQ(layout.subgame(g.blocks[1].base).blocks[1].base, c);
        }
    }
    ConfigList wide(3, ConfigList::wide_for(configs));
    wide.set(1, configs - 1);
    EXPECT_EQ(wide[1], configs - 1);
    EXPECT_EQ(wide[0], 0u);
    EXPECT_FALSE(ConfigList::wide_for(PositionIndex(named("MMMvMMMM")).men_configs()));
}

TEST(Workflow, PlanTsvReadsBackAsWritten) {
    const WorkflowPlan plan = plan_of(4, 3, true);
    const fs::path path = fs::temp_directory_path() / ("dtb-plan-" + std::to_string(::getpid()) + ".tsv");
    {
        std::ofstream out(path);
        write_plan_tsv(plan, out);
    }
    const WorkflowPlan back = read_plan_tsv(path);
    EXPECT_EQ(back.options.max_pieces, 4);
    EXPECT_EQ(back.options.group_pieces, 3);
    EXPECT_TRUE(back.options.dtw);
    ASSERT_EQ(back.tasks.size(), plan.tasks.size());
    for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
        EXPECT_EQ(back.tasks[i].id, plan.tasks[i].id);
        EXPECT_EQ(back.tasks[i].materials, plan.tasks[i].materials);
        EXPECT_EQ(back.tasks[i].inputs, plan.tasks[i].inputs);
        EXPECT_EQ(back.tasks[i].outputs, plan.tasks[i].outputs);
        EXPECT_EQ(back.tasks[i].positions, plan.tasks[i].positions);
    }
    fs::remove(path);
}

TEST(Workflow, ADamagedPlanTsvIsRefusedWithItsLine) {
    const fs::path path = fs::temp_directory_path() / ("dtb-plan-bad-" + std::to_string(::getpid()) + ".tsv");
    std::ostringstream good;
    write_plan_tsv(plan_of(3, 2), good);
    const std::string text = good.str();
    const auto cases = std::map<std::string, std::string>{
        {"", ":1:"},
        {"not a plan\n", ":1:"},
        {text.substr(0, text.find('\n') + 1), ":2:"},
        {text + "KXvK\t3\tKXvK\t\tKXvK.wdl\t1\t1\t1\n", "unknown material 'KXvK'"},
        {text + "KMvK\t3\tKMvK\n", "expected 8 tab-separated fields"},
    };
    for (const auto& [content, expected] : cases) {
        std::ofstream(path) << content;
        try {
            read_plan_tsv(path);
            ADD_FAILURE() << "accepted: " << content;
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
        }
    }
    fs::remove(path);
    EXPECT_THROW(read_plan_tsv(path), std::runtime_error);
}

}  // namespace
}  // namespace dtb
