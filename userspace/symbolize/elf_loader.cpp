#include "userspace/symbolize/elf_loader.h"

#include <exception>

#include "base/error.h"
#include "userspace/symbolize/process_files.h"

namespace jfrbpf::symbolize {
namespace {

// A vDSO is two or three pages; anything much larger is not one.
constexpr uint64_t kMaxVdsoBytes = 1 << 20;

// The process's vDSO from its memory, else our own when it has the same size (same kernel, same ABI).
std::vector<uint8_t> vdsoImageOf(int pid, const proc::Mapping& mapping) {
  uint64_t size = mapping.end - mapping.start;
  if (size > kMaxVdsoBytes) return {};
  if (std::optional<std::vector<uint8_t>> image = readProcessMemory(pid, mapping.start, size)) return std::move(*image);
  std::optional<std::vector<uint8_t>> own = ownVdsoImage();
  if (own && own->size() == size) return std::move(*own);
  return {};
}

}  // namespace

ElfLoader::ElfLoader(std::vector<std::string> debugRoots, size_t cacheBytes)
    : debugFiles_(std::move(debugRoots)), cache_(cacheBytes), maxTableBytes_(cacheBytes) {}

std::shared_ptr<const ElfSymbols> ElfLoader::loadMappedFile(int pid, const proc::Mapping& mapping, int rootFd) {
  UniqueFd fd = openMappedFile(pid, mapping, rootFd);
  if (!fd) {
    ++stats_.failures;
    return nullptr;
  }
  std::string fileKey = fileIdentityKey(fd.get());
  if (auto cached = cache_.find(fileKey)) {
    ++stats_.cacheHits;
    return cached;
  }
  try {
    return parseAndCache(ElfFile::fromFd(std::move(fd)), fileKey, mapping.path, rootFd);
  } catch (const std::exception&) {
    ++stats_.failures;  // not ELF, or hostile: the frames show library + offset instead
    return nullptr;
  }
}

std::shared_ptr<const ElfSymbols> ElfLoader::loadVdso(int pid, const proc::Mapping& mapping) {
  std::vector<uint8_t> image = vdsoImageOf(pid, mapping);
  if (image.empty()) {
    ++stats_.failures;
    return nullptr;
  }
  try {
    return parseAndCache(ElfFile::fromMemory(std::move(image)), {}, {}, -1);
  } catch (const std::exception&) {
    ++stats_.failures;
    return nullptr;
  }
}

std::shared_ptr<const ElfSymbols> ElfLoader::parseAndCache(ElfFile object, const std::string& fileKey,
                                                           const std::string& objectPath, int rootFd) {
  std::string idKey = object.buildId().empty() ? std::string() : buildIdKey(object.buildId());
  if (!idKey.empty()) {
    if (auto cached = cache_.find(idKey)) {
      ++stats_.cacheHits;
      cache_.insert(fileKey, cached);  // the same object seen through another file (another container)
      return cached;
    }
  }
  std::optional<FoundDebugFile> debug;
  if (!object.hasSymtab()) debug = debugFiles_.find(object, objectPath, rootFd);
  std::shared_ptr<const ElfSymbols> symbols =
      debug ? buildElfSymbols(object, &debug->file, debug->path, maxTableBytes_)
            : buildElfSymbols(object, nullptr, {}, maxTableBytes_);
  ++stats_.objectsParsed;
  if (debug) ++stats_.debugFilesUsed;
  cache_.insert(idKey, symbols);
  cache_.insert(fileKey, symbols);
  return symbols;
}

}  // namespace jfrbpf::symbolize
