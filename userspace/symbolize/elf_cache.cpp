#include "userspace/symbolize/elf_cache.h"

#include <sys/stat.h>

namespace jfrbpf::symbolize {

std::shared_ptr<const ElfSymbols> ElfCache::find(const std::string& key) {
  auto found = byKey_.find(key);
  if (found == byKey_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, found->second);
  return found->second->symbols;
}

void ElfCache::insert(const std::string& key, std::shared_ptr<const ElfSymbols> symbols) {
  if (key.empty() || symbols == nullptr) return;
  if (auto existing = byKey_.find(key); existing != byKey_.end()) {
    if (existing->second->symbols == symbols) return;
    // The key now names another object (a file rewritten in place): forget the old association.
    Lru::iterator previous = existing->second;
    std::erase(previous->keys, key);
    byKey_.erase(existing);
    if (previous->keys.empty()) {
      byObject_.erase(previous->symbols.get());
      bytes_ -= previous->bytes;
      lru_.erase(previous);
    }
  }
  auto entry = byObject_.find(symbols.get());
  if (entry == byObject_.end()) {
    size_t size = symbols->memoryBytes();
    lru_.push_front(Entry{symbols, {}, size});
    bytes_ += size;
    entry = byObject_.emplace(symbols.get(), lru_.begin()).first;
  } else {
    lru_.splice(lru_.begin(), lru_, entry->second);
  }
  entry->second->keys.push_back(key);
  byKey_.emplace(key, entry->second);
  evictOverBudget();
}

void ElfCache::evictOverBudget() {
  // The newest object stays even when it alone exceeds the budget: it is about to be used.
  while (bytes_ > byteBudget_ && lru_.size() > 1) {
    Entry& victim = lru_.back();
    for (const std::string& key : victim.keys) byKey_.erase(key);
    byObject_.erase(victim.symbols.get());
    bytes_ -= victim.bytes;
    lru_.pop_back();
  }
}

void ElfCache::clear() {
  lru_.clear();
  byKey_.clear();
  byObject_.clear();
  bytes_ = 0;
}

std::string buildIdKey(std::string_view buildId) { return "build-id:" + hexBuildId(buildId); }

std::string fileIdentityKey(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return {};
  return "file:" + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) +
         ":" + std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
}

}  // namespace jfrbpf::symbolize
