// dtb upgrade: version-1 files (written by the test helper, independently of gen/) become the
// files of version 2 byte for byte, and nothing is lost when a file does not read.
#include <filesystem>

#include <gtest/gtest.h>

#include "gen/folder_lock.hpp"
#include "gen/upgrade.hpp"
#include "index/position_index.hpp"
#include "probe/table_file.hpp"
#include "probe/tablebase.hpp"
#include "tests/probe/test_tables.hpp"

namespace dtb {
namespace {

namespace fs = std::filesystem;

constexpr std::uint32_t kBlock = 700;

// Every material of up to 3 pieces in `version`, synthetic values, and a DTW file of KvK.
void write_tables(const fs::path& dir, std::uint32_t version) {
    for (const Material& m : materials_in_build_order(3))
        test::write_table(dir, m, kBlock, [&](std::uint64_t i) { return test::synthetic_value(m, i); }, version);
    format::Header h;
    h.format_version = version;
    h.kind = format::FileKind::Dtw;
    h.value_encoding = format::kEncodingDtwU8;
    h.material = *parse_material("KvK");
    h.positions_per_block = 333;
    h.positions = PositionIndex(h.material).size();
    h.max_dtw = 2 * 99 + 1;
    test::write_file(dir / "KvK.dtw", h, [&](std::uint64_t first, std::uint64_t count, std::vector<std::uint8_t>& raw) {
        for (std::uint64_t i = 0; i < count; ++i) raw[i] = static_cast<std::uint8_t>(test::synthetic_half_dtw(h.material, first + i));
    });
}

TEST(Upgrade, VersionOneFilesBecomeTheFilesOfVersionTwoByteForByte) {
    const test::TempDir old_dir("upgrade-v1"), new_dir("upgrade-v2");
    write_tables(old_dir, 1);
    write_tables(new_dir, format::kFormatVersion);
    std::vector<std::string> told;
    const UpgradeReport report = upgrade_folder(old_dir, [&](const std::string& name, UpgradeOutcome outcome, const std::string&) {
        EXPECT_EQ(outcome, UpgradeOutcome::Upgraded) << name;
        told.push_back(name);
    });
    EXPECT_TRUE(report.errors.empty());
    EXPECT_EQ(report.current, 0u);
    std::size_t files = 0;
    for (const fs::directory_entry& e : fs::directory_iterator(new_dir.path())) {
        ++files;
        const std::string name = e.path().filename().string();
        EXPECT_EQ(test::read_bytes(old_dir.path() / name), test::read_bytes(e.path())) << name;
        EXPECT_EQ(TableFile(old_dir.path() / name, name.ends_with(".dtw") ? format::FileKind::Dtw : format::FileKind::Wdl)
                      .header()
                      .format_version,
                  format::kFormatVersion);
    }
    EXPECT_EQ(report.upgraded.size(), files);
    EXPECT_EQ(told.size(), files);

    const UpgradeReport again = upgrade_folder(old_dir, [](const std::string&, UpgradeOutcome, const std::string&) {});
    EXPECT_TRUE(again.upgraded.empty());
    EXPECT_EQ(again.current, files);
}

TEST(Upgrade, AFileThatDoesNotReadStaysAsItWasAndTheOthersAreUpgraded) {
    const test::TempDir dir("upgrade-corrupt");
    write_tables(dir, 1);
    const fs::path victim = dir.path() / "KKvK.wdl";
    test::flip_block_byte(victim, 3);
    const auto before = test::read_bytes(victim);
    const UpgradeReport report = upgrade_folder(dir, [](const std::string&, UpgradeOutcome, const std::string&) {});
    ASSERT_EQ(report.errors.size(), 1u);
    EXPECT_NE(report.errors[0].find("KKvK.wdl: block 3"), std::string::npos) << report.errors[0];
    EXPECT_EQ(test::read_bytes(victim), before);
    EXPECT_EQ(TableFile(victim).header().format_version, 1u);
    for (const fs::directory_entry& e : fs::directory_iterator(dir.path()))
        EXPECT_NE(e.path().extension(), ".tmp") << e.path();
    EXPECT_EQ(report.upgraded.size(), materials_in_build_order(3).size());  // every .wdl file but one, and KvK.dtw

    // The values read from the upgraded files are the values written.
    const Tablebase tb(dir.path());
    const PositionIndex index(*parse_material("KMvK"));
    for (std::uint64_t i = 0; i < index.size(); i += 37) {
        const Position p = index.position(i);
        if (has_capture(p)) continue;
        ASSERT_EQ(tb.probe_wdl(p).value, test::synthetic_value(index.material(), i)) << i;
    }
}

TEST(Upgrade, RefusesAFolderBeingWritten) {
    const test::TempDir dir("upgrade-locked");
    write_tables(dir, 1);
    const FolderLock build(dir.path(), "");
    try {
        upgrade_folder(dir, [](const std::string&, UpgradeOutcome, const std::string&) {});
        FAIL() << "upgraded a folder locked by a build";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("is writing to"), std::string::npos) << e.what();
    }
    EXPECT_EQ(TableFile(dir.path() / "KvK.wdl").header().format_version, 1u);
}

}  // namespace
}  // namespace dtb
