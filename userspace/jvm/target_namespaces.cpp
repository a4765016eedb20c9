#include "userspace/jvm/target_namespaces.h"

#include <dirent.h>
#include <sys/stat.h>

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string_view>

namespace jfrbpf::jvm {

namespace {

bool sameInode(const std::string& a, const std::string& b) {
  struct stat sa{}, sb{};
  if (stat(a.c_str(), &sa) != 0 || stat(b.c_str(), &sb) != 0) return true;  // no namespaces to compare
  return sa.st_ino == sb.st_ino && sa.st_dev == sb.st_dev;
}

bool parseInt(std::string_view text, long long& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && end == text.data() + text.size();
}

}  // namespace

int64_t monotonicOffsetNs(pid_t pid, const std::string& procRoot) {
  std::ifstream in(procRoot + "/" + std::to_string(pid) + "/timens_offsets");
  std::string line;
  for (int lines = 0; lines < 16 && std::getline(in, line); ++lines) {
    std::istringstream fields(line);
    std::string clock, secs, nanos;
    fields >> clock >> secs >> nanos;
    long long s = 0, ns = 0;
    // The kernel names the clock "monotonic" (or by its id, 1).
    if ((clock == "monotonic" || clock == "1") && parseInt(secs, s) && parseInt(nanos, ns) &&
        s > -(1ll << 33) && s < (1ll << 33) && ns >= 0 && ns < 1000000000) {
      return s * 1000000000ll + ns;
    }
  }
  return 0;
}

TidTranslator::TidTranslator(pid_t pid, std::string procRoot) : pid_(pid), procRoot_(std::move(procRoot)) {
  identity_ = sameInode(procRoot_ + "/self/ns/pid", procRoot_ + "/" + std::to_string(pid_) + "/ns/pid");
}

pid_t TidTranslator::hostTid(pid_t nsTid) {
  if (nsTid <= 0) return 0;
  if (identity_) return nsTid;
  auto it = nsToHost_.find(nsTid);
  if (it == nsToHost_.end() && rescanAllowed_) {
    rescan();
    it = nsToHost_.find(nsTid);
  }
  return it == nsToHost_.end() ? 0 : it->second;
}

void TidTranslator::rescan() {
  rescanAllowed_ = false;
  nsToHost_.clear();
  std::string taskDir = procRoot_ + "/" + std::to_string(pid_) + "/task";
  DIR* dir = opendir(taskDir.c_str());
  if (dir == nullptr) return;
  while (dirent* entry = readdir(dir)) {
    long long hostTid = 0;
    if (!parseInt(entry->d_name, hostTid) || hostTid <= 0) continue;
    std::ifstream status(taskDir + "/" + entry->d_name + "/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("NSpid:", 0) != 0) continue;
      // "NSpid:\t<ours>\t...\t<innermost>": the last value is the tid inside the JVM's namespace.
      std::istringstream values(line.substr(6));
      std::string value, last;
      while (values >> value) last = value;
      long long nsTid = 0;
      if (parseInt(last, nsTid) && nsTid > 0) nsToHost_[static_cast<pid_t>(nsTid)] = static_cast<pid_t>(hostTid);
      break;
    }
  }
  closedir(dir);
}

}  // namespace jfrbpf::jvm
