#include "userspace/symbolize/debug_file_finder.h"

#include <unistd.h>
#include <zlib.h>

#include <exception>

#include "base/error.h"
#include "userspace/symbolize/elf_symbols.h"
#include "userspace/symbolize/process_files.h"

namespace jfrbpf::symbolize {
namespace {

constexpr std::string_view kTargetDebugRoot = "/usr/lib/debug";

std::string directoryOf(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return {};
  return std::string(path.substr(0, slash));
}

}  // namespace

std::optional<uint32_t> fileCrc32(int fd) {
  unsigned char buffer[1 << 16];
  uLong crc = crc32(0L, Z_NULL, 0);
  off_t offset = 0;
  for (;;) {
    ssize_t got = ::pread(fd, buffer, sizeof buffer, offset);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return std::nullopt;
    if (got == 0) break;
    crc = crc32(crc, buffer, static_cast<uInt>(got));
    offset += got;
  }
  return static_cast<uint32_t>(crc);
}

DebugFileFinder::DebugFileFinder(std::vector<std::string> debugRoots) : debugRoots_(std::move(debugRoots)) {}

std::optional<FoundDebugFile> DebugFileFinder::find(const ElfFile& object, std::string_view objectPath,
                                                    int targetRootFd) const {
  const std::string& buildId = object.buildId();
  const std::optional<DebugLink>& link = object.debugLink();

  auto accept = [&](UniqueFd fd, std::string description) -> std::optional<FoundDebugFile> {
    if (!fd) return std::nullopt;
    try {
      ElfFile candidate = ElfFile::fromFd(std::move(fd));
      if (!candidate.hasSymtab()) return std::nullopt;
      if (!buildId.empty() && !candidate.buildId().empty()) {
        if (candidate.buildId() != buildId) return std::nullopt;
      } else {
        if (!link) return std::nullopt;
        std::optional<uint32_t> crc = fileCrc32(candidate.fd());
        if (!crc || *crc != link->crc) return std::nullopt;
      }
      return FoundDebugFile{std::move(candidate), std::move(description)};
    } catch (const std::exception&) {
      return std::nullopt;  // a broken candidate is as good as none
    }
  };

  if (!buildId.empty()) {
    std::string hex = hexBuildId(buildId);
    std::string relative = "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug";
    for (const std::string& root : debugRoots_) {
      if (auto found = accept(openHostFile(root + relative), root + relative)) return found;
    }
    std::string inTarget = std::string(kTargetDebugRoot) + relative;
    if (auto found = accept(openInRoot(targetRootFd, inTarget), "<process root>" + inTarget)) return found;
  }

  if (link && !objectPath.empty() && objectPath.front() == '/') {
    std::string directory = directoryOf(objectPath);
    const std::string& name = link->fileName;
    for (const std::string& root : debugRoots_) {
      std::string path = root + directory + "/" + name;
      if (auto found = accept(openHostFile(path), path)) return found;
    }
    for (std::string path : {std::string(kTargetDebugRoot) + directory + "/" + name,
                             directory + "/.debug/" + name, directory + "/" + name}) {
      if (auto found = accept(openInRoot(targetRootFd, path), "<process root>" + path)) return found;
    }
  }
  return std::nullopt;
}

}  // namespace jfrbpf::symbolize
