#pragma once
// What a recording that did not finish (its writer killed, out of memory, the power cut) left readable: the
// chunks from the start of the file that are whole and decode, before the first one that is not.
#include <cstddef>
#include <cstdint>
#include <span>

namespace jfrbpf::jfr::reader {

struct CompleteChunks {
  size_t count = 0;  // whole chunks from the start of the file
  size_t bytes = 0;  // what they take: a valid recording by themselves when count > 0
};

CompleteChunks completeChunks(std::span<const uint8_t> file);

}  // namespace jfrbpf::jfr::reader
