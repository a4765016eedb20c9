#pragma once
// A recording written by a command that makes one from others (recover, dump): it appears whole under its
// name or not at all, and never replaces an existing file.
#include <cstdint>
#include <span>
#include <string>

namespace jfrbpf::cli {

// Throws jfrbpf::Error (a usage error when `destination` exists).
void writeNewFile(const std::string& destination, std::span<const uint8_t> bytes);

}  // namespace jfrbpf::cli
