// The portable build of dtb hands over to a build of the same sources for x86-64-v3 (AVX2, BMI2:
// `dtb gen` about twice as fast), built beside it, when the CPU has those instructions.
#pragma once

#include <string>

namespace dtb::cli {

// Replaces this process (same arguments, environment and PID, so that scripts and workflow engines
// see one program) with the faster build when it exists beside this binary, the CPU can run it and
// DTB_PORTABLE is not set to a non-empty value other than 0. Returns only when it does not hand
// over; a build without one (native, sanitizers) never does.
void hand_over_to_faster_build(char** argv);

// The path by which scripts (dtb plan's Makefile and Snakefile) should call dtb: this binary's, but
// in the faster build the portable dtb beside it, which hands over again on each machine that runs
// a task (a cluster's nodes may lack the instructions). Empty when /proc/self/exe cannot be read.
std::string executable_for_scripts();

// What this binary was built for: "portable", "x86-64-v3" or "native".
const char* build_target();

}  // namespace dtb::cli
