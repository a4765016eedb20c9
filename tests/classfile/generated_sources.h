#pragma once
// Java sources too large or repetitive to commit, generated into the test's source directory.
#include <string>

namespace jfrbpf::classfile::testing {

// cases.BigMethod: a method whose loop body is just under 32 KB but holds `returns` return statements, so
// the exit calls inserted before them push a forward ifle and a backward ifgt past the reach of a 16-bit
// offset (the rewriter must widen them and compute frames for the new branch targets).
std::string bigMethodSource(int returns);

// cases.WideLocals: more than 255 locals (wide loads/stores, full frames with hundreds of entries).
std::string wideLocalsSource(int locals);

}  // namespace jfrbpf::classfile::testing
