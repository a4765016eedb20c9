#include "userspace/unwind/table_cache.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "base/error.h"
#include "base/unique_fd.h"
#include "userspace/unwind/byte_source.h"
#include "userspace/unwind/elf_image.h"

namespace jfrbpf::unwind {

std::shared_ptr<const UnwindTable> TableCache::forFile(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw systemError("cannot stat a mapped file to build its unwind table");
  FileKey key{st.st_dev, st.st_ino, st.st_size, int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec};
  std::lock_guard lock(mutex_);
  if (auto known = byFile_.find(key); known != byFile_.end()) return known->second;
  ByteSource source = ByteSource::fromFd(fd);
  ElfImage image(source);
  std::shared_ptr<const UnwindTable> table = byBuildIdOrCompile(image.buildId(), image);
  byFile_.emplace(key, table);
  return table;
}

std::shared_ptr<const UnwindTable> TableCache::forBytes(std::span<const uint8_t> bytes) {
  ByteSource source = ByteSource::fromBytes(bytes);
  ElfImage image(source);
  std::string buildId = image.buildId();
  std::lock_guard lock(mutex_);
  if (!buildId.empty()) return byBuildIdOrCompile(buildId, image);
  std::pair<size_t, uint64_t> key{
      std::hash<std::string_view>{}(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size())),
      bytes.size()};
  if (auto known = byContent_.find(key); known != byContent_.end()) return known->second;
  auto table = compile(buildId, image);
  byContent_.emplace(key, table);
  return table;
}

std::shared_ptr<const UnwindTable> TableCache::byBuildIdOrCompile(const std::string& buildId, const ElfImage& image) {
  if (!buildId.empty()) {
    if (auto known = byBuildId_.find(buildId); known != byBuildId_.end()) return known->second;
  }
  auto table = compile(buildId, image);
  if (!buildId.empty()) byBuildId_.emplace(buildId, table);
  return table;
}

std::shared_ptr<const UnwindTable> TableCache::compile(const std::string& buildId, const ElfImage& image) {
  ++compilations_;
  if (buildId.size() > 2 && !debugDirectory_.empty()) {
    std::string path = debugDirectory_ + "/.build-id/" + buildId.substr(0, 2) + "/" + buildId.substr(2) + ".debug";
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd) {
      try {
        ByteSource debugSource = ByteSource::fromFd(fd.get());
        ElfImage debugImage(debugSource);
        if (debugImage.buildId() == buildId) {
          return std::make_shared<const UnwindTable>(compileUnwindTable(image, &debugImage, limits_));
        }
      } catch (const Error&) {
        // An unusable debug file changes nothing: the file's own sections are enough.
      }
    }
  }
  return std::make_shared<const UnwindTable>(compileUnwindTable(image, limits_));
}

void TableCache::prune() {
  std::lock_guard lock(mutex_);
  std::unordered_map<const UnwindTable*, long> cacheReferences;
  auto countIn = [&](const auto& map) {
    for (const auto& [key, table] : map) ++cacheReferences[table.get()];
  };
  countIn(byBuildId_);
  countIn(byFile_);
  countIn(byContent_);
  // Decide before erasing anything: erasing changes the use counts seen by the later maps.
  std::unordered_set<const UnwindTable*> unused;
  auto findUnused = [&](const auto& map) {
    for (const auto& [key, table] : map) {
      if (table.use_count() == cacheReferences[table.get()]) unused.insert(table.get());
    }
  };
  findUnused(byBuildId_);
  findUnused(byFile_);
  findUnused(byContent_);
  auto isUnused = [&](const auto& entry) { return unused.contains(entry.second.get()); };
  std::erase_if(byBuildId_, isUnused);
  std::erase_if(byFile_, isUnused);
  std::erase_if(byContent_, isUnused);
}

std::unordered_set<const UnwindTable*> TableCache::distinctTables() const {
  std::unordered_set<const UnwindTable*> distinct;
  for (const auto& [key, table] : byBuildId_) distinct.insert(table.get());
  for (const auto& [key, table] : byFile_) distinct.insert(table.get());
  for (const auto& [key, table] : byContent_) distinct.insert(table.get());
  return distinct;
}

size_t TableCache::size() const {
  std::lock_guard lock(mutex_);
  return distinctTables().size();
}

size_t TableCache::memoryBytes() const {
  std::lock_guard lock(mutex_);
  size_t bytes = 0;
  for (const UnwindTable* table : distinctTables()) bytes += table->memoryBytes();
  return bytes;
}

size_t TableCache::compilations() const {
  std::lock_guard lock(mutex_);
  return compilations_;
}

}  // namespace jfrbpf::unwind
