#include "tools/faster_build.hpp"

#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <system_error>

#include <unistd.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace dtb::cli {

#ifndef DTB_BUILD_TARGET
#define DTB_BUILD_TARGET "portable"
#endif

namespace {

// This binary's own file (symbolic links resolved); empty when /proc/self/exe cannot be read.
std::filesystem::path this_binary() {
    std::error_code error;
    auto self = std::filesystem::canonical("/proc/self/exe", error);
    return error ? std::filesystem::path() : self;
}

#if defined(DTB_FASTER_TARGET) && defined(__x86_64__)
// AMD family 17h: Zen 1, Zen+ and Zen 2 (the family as /proc/cpuinfo's "cpu family" counts it, 23).
bool is_amd_family_17h() {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx)) return false;
    const bool amd = ebx == 0x68747541 && edx == 0x69746e65 && ecx == 0x444d4163;  // "AuthenticAMD"
    if (!amd || !__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
    const unsigned base_family = (eax >> 8) & 0xf, extended_family = (eax >> 20) & 0xff;
    return base_family == 0xf && base_family + extended_family == 0x17;
}
#endif

}  // namespace

const char* build_target() { return DTB_BUILD_TARGET; }

std::string executable_for_scripts() {
    const auto self = this_binary();
    if (self.empty()) return {};
#ifdef DTB_BESIDE_PORTABLE
    const auto portable = self.parent_path() / "dtb";
    if (::access(portable.c_str(), X_OK) == 0) return portable.string();
#endif
    return self.string();
}

void hand_over_to_faster_build([[maybe_unused]] char** argv) {
#if defined(DTB_FASTER_TARGET) && defined(__x86_64__)
    if (const char* portable = std::getenv("DTB_PORTABLE"); portable && *portable && std::string_view(portable) != "0")
        return;
    __builtin_cpu_init();
    if (!__builtin_cpu_supports(DTB_FASTER_TARGET)) return;
    // AMD's Zen 1 and Zen 2 have BMI2 but run PDEP and PEXT in microcode (about 80 ns each here
    // against a few cycles elsewhere), and the index ranks and unranks with them: there the
    // portable build's loops are faster (2-4 pieces built in 11 s against 21 s on a Zen 1 EPYC).
    if (is_amd_family_17h()) return;
    const auto self = this_binary();
    if (self.empty()) return;
    const auto faster = self.parent_path() / ("dtb-" DTB_FASTER_TARGET);
    if (::access(faster.c_str(), X_OK) != 0) return;
    ::execv(faster.c_str(), argv);  // returns only on failure: then the portable build runs
#endif
}

}  // namespace dtb::cli
