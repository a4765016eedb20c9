#include "jvmsupport/filter/filter_argument.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/unique_fd.h"

namespace jfrbpf::filter {
namespace {

// Far above any real list of targets; keeps a mistaken path (a log, a device) from being slurped.
constexpr size_t kMaxFilterFileBytes = 1 << 20;

bool isRegularFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Reads the whole file into `out`; on failure returns the reason.
std::string readSmallFile(const std::string& path, std::string& out) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (!fd) return std::strerror(errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return std::strerror(errno);
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  char buffer[16384];
  while (true) {
    ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      return std::strerror(errno);
    }
    if (n == 0) return {};
    if (out.size() + static_cast<size_t>(n) > kMaxFilterFileBytes) {
      return "larger than " + std::to_string(kMaxFilterFileBytes) + " bytes";
    }
    out.append(buffer, static_cast<size_t>(n));
  }
}

FilterArgumentResult fromText(std::string_view optionName, std::string_view text, Separators separators,
                              std::string_view source) {
  FilterParseResult parsed = parseFilter(text, separators);
  if (parsed.error) return {Filter{}, describeFilterError(optionName, text, *parsed.error, source)};
  return {std::move(parsed.filter), {}};
}

FilterArgumentResult parse(std::string_view optionName, std::string_view argument) {
  if (!argument.starts_with('@')) return fromText(optionName, argument, Separators::kSemicolon, {});
  std::string path(argument.substr(1));
  if (path.find('/') == std::string::npos) {
    bool singleTarget = argument.find(';') == std::string_view::npos;
    if (singleTarget && !path.empty() && isRegularFile(path)) {
      return {Filter{}, "jfrbpf: " + std::string(optionName) + " " + std::string(argument) +
                            " is ambiguous: it names an annotation and the file ./" + path + "; write @./" +
                            path + " to read the file, or '" + std::string(argument) + ";' for the annotation"};
    }
    return fromText(optionName, argument, Separators::kSemicolon, {});
  }
  std::string content;
  if (std::string reason = readSmallFile(path, content); !reason.empty()) {
    return {Filter{}, "jfrbpf: cannot read the " + std::string(optionName) + " filter file " + path + ": " + reason};
  }
  return fromText(optionName, content, Separators::kSemicolonOrNewline, path);
}

}  // namespace

FilterArgumentResult parseFilterArgument(std::string_view optionName, std::string_view argument) noexcept {
  try {
    return parse(optionName, argument);
  } catch (...) {  // std::bad_alloc; the message is short enough not to allocate
    return {Filter{}, "out of memory"};
  }
}

}  // namespace jfrbpf::filter
