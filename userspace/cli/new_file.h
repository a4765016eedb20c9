#pragma once
// A recording written by a command that makes one from others (recover, dump): it appears whole under its
// name or not at all, and never replaces an existing file.
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "base/file_owner.h"

namespace jfrbpf::cli {

// Private (0600), handed to `owner` when given. Throws jfrbpf::Error (a usage error when `destination` exists).
void writeNewFile(const std::string& destination, std::span<const uint8_t> bytes,
                  std::optional<FileOwner> owner = std::nullopt);

}  // namespace jfrbpf::cli
