#pragma once
// Turns a class compiled for Java 8 into a version 49 (Java 5) class file by dropping its StackMapTables:
// the only way to get old-format classes from today's javac, for testing the inference-verifier path.
#include <cstdint>
#include <span>
#include <vector>

namespace jfrbpf::classfile::testing {

std::vector<uint8_t> downgradeToVersion49(std::span<const uint8_t> classBytes);

}  // namespace jfrbpf::classfile::testing
