#pragma once
// Deduplicating string storage whose views never move: names handed to the loader stay valid without copies.
#include <cstddef>
#include <memory>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace jfrbpf::symbolize {

class StringInterner {
 public:
  StringInterner() = default;
  StringInterner(const StringInterner&) = delete;
  StringInterner& operator=(const StringInterner&) = delete;

  // Returns a view equal to `text` that lives as long as this interner.
  std::string_view intern(std::string_view text);
  size_t bytesUsed() const { return bytesUsed_; }
  size_t size() const { return index_.size(); }
  // Frees every string: the views handed out so far are void.
  void clear();

 private:
  static constexpr size_t kBlockSize = 64 * 1024;

  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t blockRemaining_ = 0;
  char* blockCursor_ = nullptr;
  size_t bytesUsed_ = 0;
  std::unordered_set<std::string_view> index_;
};

}  // namespace jfrbpf::symbolize
