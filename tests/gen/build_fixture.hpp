// A temporary database folder per test, and a helper to build into it.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <tbb/global_control.h>
#include <unistd.h>

#include "gen/builder.hpp"

namespace dtb {

namespace fs = std::filesystem;

inline std::string read_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

class BuildTest : public ::testing::Test {
protected:
    void SetUp() override {
        root_ = fs::temp_directory_path() /
                ("dtb-build-test-" + std::to_string(::getpid()) + "-" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(root_);
        fs::create_directories(root_);
    }
    void TearDown() override {
        std::error_code ignored;
        fs::permissions(root_, fs::perms::owner_all, ignored);
        fs::remove_all(root_, ignored);
    }
    void build_into(const fs::path& dir, int pieces, int threads = 0) {
        std::unique_ptr<tbb::global_control> limit;
        if (threads > 0) limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, threads);
        BuildOptions o;
        o.dir = dir;
        o.max_pieces = pieces;
        o.keep_copies = keep_copies_;
        o.only = only_;
        o.slices = slices_;
        o.memory_bytes = memory_bytes_;
        std::ostringstream log;
        build(o, log);
        log_ = log.str();
    }
    fs::path root_;
    std::string log_;
    bool keep_copies_ = false;
    std::vector<Material> only_;  // BuildOptions::only
    int slices_ = 1;              // BuildOptions::slices
    std::uint64_t memory_bytes_ = 0;  // BuildOptions::memory_bytes
};

}  // namespace dtb
