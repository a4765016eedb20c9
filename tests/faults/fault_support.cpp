#include "tests/faults/fault_support.h"

#include <fcntl.h>
#include <linux/bpf.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/support/private_tmp.h"
#include "userspace/attach/agent_staging.h"
#include "userspace/record/jvm/jvm_connection.h"

namespace jfrbpf::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;


// Whether BPF object `id` of the kind `command` looks up (BPF_PROG_GET_FD_BY_ID, ...) still exists.
bool bpfObjectExists(int command, uint32_t id) {
  bpf_attr attr{};
  if (command == BPF_PROG_GET_FD_BY_ID) attr.prog_id = id;
  if (command == BPF_MAP_GET_FD_BY_ID) attr.map_id = id;
  if (command == BPF_LINK_GET_FD_BY_ID) attr.link_id = id;
  int fd = static_cast<int>(syscall(SYS_bpf, command, &attr, sizeof attr));
  if (fd >= 0) close(fd);
  return fd >= 0 || errno != ENOENT;
}

BpfObjects existing(const BpfObjects& objects) {
  BpfObjects left;
  for (uint32_t id : objects.programs) {
    if (bpfObjectExists(BPF_PROG_GET_FD_BY_ID, id)) left.programs.insert(id);
  }
  for (uint32_t id : objects.maps) {
    if (bpfObjectExists(BPF_MAP_GET_FD_BY_ID, id)) left.maps.insert(id);
  }
  for (uint32_t id : objects.links) {
    if (bpfObjectExists(BPF_LINK_GET_FD_BY_ID, id)) left.links.insert(id);
  }
  return left;
}

}  // namespace

// /proc/locks names locks by device and inode.
bool lockedByAProcess(const fs::path& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return false;
  char key[64];
  std::snprintf(key, sizeof key, " %02x:%02x:%llu ", major(st.st_dev), minor(st.st_dev),
                static_cast<unsigned long long>(st.st_ino));
  std::ifstream locks("/proc/locks");
  for (std::string line; std::getline(locks, line);) {
    if (line.find("FLOCK") != std::string::npos && line.find(key) != std::string::npos) return true;
  }
  return false;
}

std::vector<std::string> partFiles(const fs::path& dir) {
  std::vector<std::string> parts;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().string().ends_with(".part.jfr")) parts.push_back(entry.path().string());
  }
  return parts;
}

bool awaitFirstChunk(const fs::path& dir, std::chrono::seconds timeout) {
  for (auto until = std::chrono::steady_clock::now() + timeout; std::chrono::steady_clock::now() < until;) {
    for (const std::string& part : partFiles(dir)) {
      std::error_code ec;
      if (fs::file_size(part, ec) > 0) return true;
    }
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

std::unique_ptr<Workload> jvmWithPrivateTmp(const std::string& mainClass, const std::vector<std::string>& args,
                                            size_t workers) {
  std::vector<std::string> argv{"unshare", "--mount", "--propagation", "private",
                                "sh",      "-c",      privateTmpMounts() + "cd /tmp && exec \"$0\" \"$@\""};
  for (const std::string& arg : javaCommand(17, {}, mainClass, args)) argv.push_back(arg);
  return std::make_unique<Workload>(argv, workers);
}

std::vector<std::string> jfrbpfFilesOf(pid_t jvm) {
  std::vector<std::string> found;
  for (const char* where : {"root/tmp", "cwd"}) {
    const fs::path dir = fs::path("/proc") / std::to_string(jvm) / where;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string name = entry.path().filename().string();
      const bool staged = attach::isStagingName(name) || (name.starts_with(".") && attach::isStagingName(name.substr(1)));
      if (name.starts_with(".attach_pid") || (staged && !lockedByAProcess(entry.path()))) {
        found.push_back(entry.path().string());
      }
    }
  }
  return found;
}

bool holdsStagedAgent(pid_t recorder) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path("/proc") / std::to_string(recorder) / "fd", ec)) {
    std::error_code unreadable;
    if (fs::read_symlink(entry.path(), unreadable).filename().string().starts_with("jfrbpf-")) return true;
  }
  return false;
}

bool agentLoaded(pid_t jvm) {
  std::ifstream maps("/proc/" + std::to_string(jvm) + "/maps");
  for (std::string line; std::getline(maps, line);) {
    if (line.find("/libjfrbpf-agent") != std::string::npos) return true;
  }
  return false;
}

UniqueFd holdAttachListener(pid_t jvm) {
  const std::string id = std::to_string(jvm);
  const std::string socketPath = "/proc/" + id + "/root/tmp/.java_pid" + id;
  if (!fs::exists(socketPath)) {
    // HotSpot starts its listener on SIGQUIT when this file is in its working directory.
    const std::string trigger = "/proc/" + id + "/cwd/.attach_pid" + id;
    UniqueFd(open(trigger.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
    kill(jvm, SIGQUIT);
    for (auto until = std::chrono::steady_clock::now() + 30s;
         !fs::exists(socketPath) && std::chrono::steady_clock::now() < until;) {
      std::this_thread::sleep_for(10ms);
    }
    unlink(trigger.c_str());
  }
  UniqueFd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof address.sun_path, "%s", socketPath.c_str());
  if (connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    ADD_FAILURE() << "cannot connect to " << socketPath << ": " << std::strerror(errno);
    return UniqueFd();
  }
  return fd;
}

std::string BpfObjects::describe() const {
  std::ostringstream text;
  auto list = [&](const char* what, const std::set<uint32_t>& ids) {
    text << what << ":";
    for (uint32_t id : ids) text << " " << id;
    text << "; ";
  };
  list("programs", programs);
  list("maps", maps);
  list("links", links);
  return text.str();
}

BpfObjects bpfObjectsOf(pid_t pid) {
  BpfObjects objects;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path("/proc") / std::to_string(pid) / "fdinfo", ec)) {
    std::ifstream info(entry.path());
    for (std::string line; std::getline(info, line);) {
      unsigned id = 0;
      // A link's fdinfo names its program too: both are the recorder's.
      if (std::sscanf(line.c_str(), "prog_id: %u", &id) == 1) objects.programs.insert(id);
      if (std::sscanf(line.c_str(), "map_id: %u", &id) == 1) objects.maps.insert(id);
      if (std::sscanf(line.c_str(), "link_id: %u", &id) == 1) objects.links.insert(id);
    }
  }
  return objects;
}

BpfObjects stillLoaded(const BpfObjects& objects, std::chrono::milliseconds timeout) {
  BpfObjects left = existing(objects);
  for (auto until = std::chrono::steady_clock::now() + timeout;
       left.size() > 0 && std::chrono::steady_clock::now() < until;) {
    std::this_thread::sleep_for(50ms);
    left = existing(left);
  }
  return left;
}

namespace {

// The bytecode length of every version of the method (each Method* once) and of the current one, through an
// agent session of this process's own.
std::vector<uint32_t> methodVersions(pid_t jvm, const std::string& className, const std::string& method,
                                     uint32_t& current) {
  auto connection = record::JvmConnection::attach(jvm, 60s);
  std::vector<uint32_t> lengths;
  std::set<uint64_t> seen;
  connection->model().methods().forEachMethod([&](const jvm::JavaMethod& m) {
    if (m.name != method || m.klass->name != className || m.codeSize == 0) return;
    current = m.codeSize;  // the newest comes last
    if (m.methodPtr != 0 && seen.insert(m.methodPtr).second) lengths.push_back(m.codeSize);
  });
  return lengths;
}

}  // namespace

void expectOriginalCode(pid_t jvm, const std::string& className, const std::string& method, bool wasInstrumented) {
  uint32_t current = 0;
  std::vector<uint32_t> lengths;
  try {
    lengths = methodVersions(jvm, className, method, current);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "cannot attach to JVM " << jvm << " to read its methods: " << e.what();
    return;
  }
  ASSERT_FALSE(lengths.empty()) << className << "::" << method << " is not known to the agent";
  const auto [shortest, longest] = std::minmax_element(lengths.begin(), lengths.end());
  EXPECT_EQ(current, *shortest) << className << "::" << method << " still runs instrumented bytecode";
  if (wasInstrumented) EXPECT_GT(*longest, *shortest) << "the method was never instrumented";
}

std::unique_ptr<ChildProcess> spawnWithPid(pid_t pid, const std::vector<std::string>& argv, std::string& why) {
  // Other processes on the machine may fork in between: try again until the pid is ours.
  for (int attempt = 0; attempt < 200; ++attempt) {
    {
      std::ofstream lastPid("/proc/sys/kernel/ns_last_pid");
      lastPid << pid - 1;
      lastPid.flush();
      if (!lastPid) {
        why = "cannot write /proc/sys/kernel/ns_last_pid (needs CAP_SYS_ADMIN in the initial pid namespace)";
        return nullptr;
      }
    }
    auto child = std::make_unique<ChildProcess>(argv, ChildOptions{.captureStderr = true, .extraEnv = {}});
    if (child->pid() == pid) return child;
  }
  why = "other processes took pid " + std::to_string(pid) + " first, 200 times";
  return nullptr;
}

}  // namespace jfrbpf::test
