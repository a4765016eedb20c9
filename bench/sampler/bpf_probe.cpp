#include "bench/sampler/bpf_probe.h"

#include <bpf/bpf.h>
#include <dirent.h>
#include <unistd.h>

#include <charconv>
#include <memory>
#include <vector>

#include "base/error.h"
#include "bench/sampler/proc_probe.h"

namespace jfrbpf::bench {
namespace {

// The fds of `pid` whose link reads `kind` ("anon_inode:bpf-prog", "anon_inode:bpf-map").
std::vector<std::string> fdsOfKind(pid_t pid, std::string_view kind) {
  std::vector<std::string> fds;
  std::string dirPath = "/proc/" + std::to_string(pid) + "/fd";
  std::unique_ptr<DIR, int (*)(DIR*)> dir(opendir(dirPath.c_str()), closedir);
  if (!dir) return fds;
  while (dirent* entry = readdir(dir.get())) {
    if (entry->d_name[0] == '.') continue;
    char target[64];
    ssize_t n = readlink((dirPath + "/" + entry->d_name).c_str(), target, sizeof(target) - 1);
    if (n <= 0) continue;
    if (std::string_view(target, static_cast<size_t>(n)) == kind) fds.emplace_back(entry->d_name);
  }
  return fds;
}

std::string fdinfoOf(pid_t pid, const std::string& fd) {
  return readTextFile("/proc/" + std::to_string(pid) + "/fdinfo/" + fd);
}

}  // namespace

BpfStatsSwitch::BpfStatsSwitch() : fd_(bpf_enable_stats(BPF_STATS_RUN_TIME)) {
  if (!fd_) {
    throw Error("cannot enable BPF run-time statistics (BPF_ENABLE_STATS): run the benchmark as root",
                ErrorKind::Environment);
  }
}

std::optional<uint64_t> fdinfoField(std::string_view fdinfo, std::string_view key) {
  size_t at = 0;
  for (;;) {
    at = fdinfo.find(key, at);
    if (at == std::string_view::npos) return std::nullopt;
    bool startOfLine = at == 0 || fdinfo[at - 1] == '\n';
    bool followedByColon = at + key.size() < fdinfo.size() && fdinfo[at + key.size()] == ':';
    if (startOfLine && followedByColon) break;
    at += key.size();
  }
  size_t pos = at + key.size() + 1;
  while (pos < fdinfo.size() && (fdinfo[pos] == ' ' || fdinfo[pos] == '\t')) ++pos;
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(fdinfo.data() + pos, fdinfo.data() + fdinfo.size(), value);
  if (ec != std::errc()) return std::nullopt;
  return value;
}

std::optional<ProgramProbe> ProgramProbe::find(pid_t pid, std::string_view name) {
  for (const std::string& fd : fdsOfKind(pid, "anon_inode:bpf-prog")) {
    std::optional<uint64_t> id = fdinfoField(fdinfoOf(pid, fd), "prog_id");
    if (!id) continue;
    UniqueFd own(bpf_prog_get_fd_by_id(static_cast<uint32_t>(*id)));
    if (!own) continue;
    bpf_prog_info info{};
    uint32_t length = sizeof(info);
    if (bpf_obj_get_info_by_fd(own.get(), &info, &length) != 0) continue;
    if (std::string_view(info.name) != name) continue;
    return ProgramProbe(std::move(own), info.id, info.verified_insns);
  }
  return std::nullopt;
}

ProgramProbe ProgramProbe::ofFd(int programFd) {
  UniqueFd own(dup(programFd));
  if (!own) throw systemError("dup of a BPF program fd");
  bpf_prog_info info{};
  uint32_t length = sizeof(info);
  if (bpf_obj_get_info_by_fd(own.get(), &info, &length) != 0) throw systemError("BPF_OBJ_GET_INFO_BY_FD");
  return ProgramProbe(std::move(own), info.id, info.verified_insns);
}

ProgramTotals ProgramProbe::totals() const {
  bpf_prog_info info{};
  uint32_t length = sizeof(info);
  if (bpf_obj_get_info_by_fd(fd_.get(), &info, &length) != 0) return {};
  return {info.run_time_ns, info.run_cnt};
}

uint64_t bpfMapBytes(pid_t pid) {
  uint64_t total = 0;
  for (const std::string& fd : fdsOfKind(pid, "anon_inode:bpf-map")) {
    total += fdinfoField(fdinfoOf(pid, fd), "memlock").value_or(0);
  }
  return total;
}

}  // namespace jfrbpf::bench
