#include "userspace/symbolize/string_interner.h"

#include <cstring>

namespace jfrbpf::symbolize {

std::string_view StringInterner::intern(std::string_view text) {
  if (auto found = index_.find(text); found != index_.end()) return *found;
  char* storage;
  if (text.size() > kBlockSize / 4) {
    // Large strings get a block of their own so they do not waste the tail of the current one.
    blocks_.push_back(std::make_unique<char[]>(text.size()));
    storage = blocks_.back().get();
  } else {
    if (text.size() > blockRemaining_) {
      blocks_.push_back(std::make_unique<char[]>(kBlockSize));
      blockCursor_ = blocks_.back().get();
      blockRemaining_ = kBlockSize;
    }
    storage = blockCursor_;
    blockCursor_ += text.size();
    blockRemaining_ -= text.size();
  }
  if (!text.empty()) std::memcpy(storage, text.data(), text.size());
  bytesUsed_ += text.size();
  std::string_view stored(storage, text.size());
  index_.insert(stored);
  return stored;
}

void StringInterner::clear() {
  index_.clear();
  blocks_.clear();
  blockRemaining_ = 0;
  blockCursor_ = nullptr;
  bytesUsed_ = 0;
}

}  // namespace jfrbpf::symbolize
