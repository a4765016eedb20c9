#include "formats/jfr/reader/arena.h"

#include <algorithm>

namespace jfrbpf::jfr::reader {

void* Arena::allocateBytes(size_t size, size_t alignment) {
  if (size == 0) size = 1;  // distinct non-null pointers keep callers simple
  while (current_ < blocks_.size()) {
    Block& block = blocks_[current_];
    size_t start = (used_ + alignment - 1) & ~(alignment - 1);
    if (start + size <= block.size) {
      used_ = start + size;
      return block.bytes.get() + start;
    }
    ++current_;
    used_ = 0;
  }
  // Oversized requests get a block of their own, so a few large arrays don't waste standard blocks.
  size_t blockSize = std::max(kBlockSize, size + alignment);
  blocks_.push_back(Block{std::make_unique<std::byte[]>(blockSize), blockSize});
  current_ = blocks_.size() - 1;
  // new[] aligns to at least alignof(max_align_t), which covers every type stored here.
  used_ = size;
  return blocks_.back().bytes.get();
}

void Arena::reset() {
  std::erase_if(blocks_, [](const Block& block) { return block.size != kBlockSize; });
  current_ = 0;
  used_ = 0;
}

}  // namespace jfrbpf::jfr::reader
