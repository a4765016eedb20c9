#include "userspace/attach/mapped_files.h"

#include <algorithm>

#include "userspace/discovery/jvm_mappings.h"

namespace jfrbpf::attach {
namespace {

template <typename Matches>
const proc::Mapping* findFirst(const std::vector<proc::Mapping>& files, Matches matches) {
  auto found = std::find_if(files.begin(), files.end(), matches);
  return found == files.end() ? nullptr : &*found;
}

}  // namespace

std::vector<proc::Mapping> fileMappings(std::string_view mapsText) {
  std::vector<proc::Mapping> files = proc::parseMaps(mapsText);
  std::erase_if(files, [](const proc::Mapping& mapping) { return !mapping.path.starts_with('/'); });
  return files;
}

const proc::Mapping* findByBaseName(const std::vector<proc::Mapping>& files, std::string_view name) {
  return findFirst(files, [&](const proc::Mapping& file) { return proc::baseName(file.path) == name; });
}

const proc::Mapping* findByBaseNamePrefix(const std::vector<proc::Mapping>& files, std::string_view prefix) {
  return findFirst(files, [&](const proc::Mapping& file) { return proc::baseName(file.path).starts_with(prefix); });
}

const proc::Mapping* findPerfDataFile(const std::vector<proc::Mapping>& files, pid_t namespacePid) {
  return findFirst(files, [&](const proc::Mapping& file) { return discovery::isPerfDataPath(file.path, namespacePid); });
}

}  // namespace jfrbpf::attach
