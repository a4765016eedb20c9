#pragma once
// For tests that start a JVM as another user: its class and library paths must be readable by that user,
// and a build tree in a private directory (`mktemp -d` makes one with mode 0700, as CI's clone may be) is
// not. Such paths are copied once per test process into a world-readable directory under /tmp, removed
// when the process ends.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace jfrbpf::test {

namespace readable_paths_detail {

inline bool everyoneMay(const std::filesystem::path& path, mode_t bits) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && (st.st_mode & bits) == bits;
}

// Whether other users can reach `path` (every directory above it searchable) and read it.
inline bool readableByOthers(const std::filesystem::path& path) {
  std::filesystem::path absolute = std::filesystem::absolute(path);
  for (std::filesystem::path above = absolute.parent_path(); !above.empty(); above = above.parent_path()) {
    if (!everyoneMay(above, S_IXOTH)) return false;
    if (above == above.root_path()) break;
  }
  return everyoneMay(absolute, std::filesystem::is_directory(absolute) ? S_IROTH | S_IXOTH : S_IROTH);
}

class Copies {
 public:
  ~Copies() {
    std::error_code ignored;
    if (!root_.empty()) std::filesystem::remove_all(root_, ignored);
  }

  std::string of(const std::string& path) {
    auto known = copies_.find(path);
    if (known != copies_.end()) return known->second;
    namespace fs = std::filesystem;
    if (root_.empty()) {
      std::string pattern = (fs::temp_directory_path() / "jfrbpf-readable-XXXXXX").string();
      if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
      root_ = pattern;
    }
    fs::path copy = fs::path(root_) / std::to_string(copies_.size());
    fs::create_directories(copy);
    copy /= fs::path(path).filename();
    fs::copy(path, copy, fs::copy_options::recursive);
    // The copies, and every directory up to root_, readable (and searchable) by everyone.
    for (const fs::path& dir : {fs::path(root_), copy.parent_path()}) openUp(dir);
    openUp(copy);
    if (fs::is_directory(copy)) {
      for (const fs::directory_entry& entry : fs::recursive_directory_iterator(copy)) openUp(entry.path());
    }
    return copies_[path] = copy.string();
  }

 private:
  static void openUp(const std::filesystem::path& path) {
    namespace fs = std::filesystem;
    fs::perms others = fs::is_directory(path) ? fs::perms::others_read | fs::perms::others_exec : fs::perms::others_read;
    fs::permissions(path, others, fs::perm_options::add);
  }

  std::string root_;
  std::map<std::string, std::string> copies_;
};

}  // namespace readable_paths_detail

// `path` itself when other users can read it, else a readable copy (see above).
inline std::string readableByOtherUsers(const std::string& path) {
  if (readable_paths_detail::readableByOthers(path)) return path;
  static readable_paths_detail::Copies copies;
  return copies.of(path);
}

// Each entry of a ':'-separated path list made readable.
inline std::string readablePathList(const std::string& list) {
  std::string out;
  size_t start = 0;
  while (true) {
    size_t end = list.find(':', start);
    std::string entry = list.substr(start, end == std::string::npos ? std::string::npos : end - start);
    out += (out.empty() && start == 0 ? "" : ":") + (entry.empty() ? entry : readableByOtherUsers(entry));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

// A java command line to run as another user: its -cp and -Djava.library.path= values made readable.
inline void makeJavaPathsReadable(std::vector<std::string>& command) {
  const std::string libraryPath = "-Djava.library.path=";
  for (size_t i = 0; i < command.size(); ++i) {
    if ((command[i] == "-cp" || command[i] == "-classpath") && i + 1 < command.size()) {
      command[i + 1] = readablePathList(command[i + 1]);
    } else if (command[i].rfind(libraryPath, 0) == 0) {
      command[i] = libraryPath + readablePathList(command[i].substr(libraryPath.size()));
    }
  }
}

}  // namespace jfrbpf::test
