#pragma once
// Parsed ELF objects shared by every process that maps them, keyed by build-id and by file identity
// (device, inode, size, mtime), least recently used evicted first once the byte budget is exceeded.
// Evicting only drops the cache's reference: a process view still holding the object keeps it alive.
#include <cstddef>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "userspace/symbolize/elf_symbols.h"

namespace jfrbpf::symbolize {

class ElfCache {
 public:
  explicit ElfCache(size_t byteBudget) : byteBudget_(byteBudget) {}

  std::shared_ptr<const ElfSymbols> find(const std::string& key);
  // Stores `symbols` under `key`; one object may be stored under several keys.
  void insert(const std::string& key, std::shared_ptr<const ElfSymbols> symbols);

  // Drops every cached object (those a process view still holds stay alive with it).
  void clear();

  size_t bytes() const { return bytes_; }
  size_t objects() const { return lru_.size(); }

 private:
  struct Entry {
    std::shared_ptr<const ElfSymbols> symbols;
    std::vector<std::string> keys;
    size_t bytes;
  };
  using Lru = std::list<Entry>;

  void evictOverBudget();

  size_t byteBudget_;
  size_t bytes_ = 0;
  Lru lru_;  // most recently used first
  std::unordered_map<std::string, Lru::iterator> byKey_;
  std::unordered_map<const ElfSymbols*, Lru::iterator> byObject_;
};

// Cache keys.
std::string buildIdKey(std::string_view buildId);
std::string fileIdentityKey(int fd);  // empty when fstat fails

}  // namespace jfrbpf::symbolize
