// Slow: builds 2-4 pieces twice.
#include "tests/gen/build_fixture.hpp"

namespace dtb {
namespace {

TEST_F(BuildTest, OutputIsByteIdenticalWhateverTheThreadCount) {
    build_into(root_ / "one", 4, 1);
    build_into(root_ / "two", 4, 2);
    int files = 0;
    for (const auto& e : fs::directory_iterator(root_ / "one")) {
        if (e.path().extension() != ".wdl") continue;
        ++files;
        EXPECT_EQ(read_bytes(e.path()), read_bytes(root_ / "two" / e.path().filename())) << e.path().filename();
    }
    EXPECT_EQ(files, static_cast<int>(materials_in_build_order(4).size()));
}

}  // namespace
}  // namespace dtb
