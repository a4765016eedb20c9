// Runs a command under a seccomp profile in the format Docker, containerd and the kubelet read
// (defaultAction, defaultErrnoRet, syscalls[] of names and action), applied as a container runtime applies
// it: this machine has no runtime, so the tests stand in for one. It reads only what the project's profile
// uses (an allow list over a default of refusing with an errno) and stops with a message at anything else.
// Names the kernel does not know are skipped, as runtimes skip them.
// Usage: seccomp_exec PROFILE.json -- COMMAND [ARG...]
#include <seccomp.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "seccomp_exec: %s\n", message.c_str());
  std::exit(125);
}

// The string value of the first "key": "value" at or after `from`.
std::string stringAfter(const std::string& json, const std::string& key, size_t from, size_t* end = nullptr) {
  const size_t at = json.find("\"" + key + "\"", from);
  if (at == std::string::npos) die("the profile has no \"" + key + "\"");
  const size_t open = json.find('"', json.find(':', at) + 1);
  const size_t close = json.find('"', open + 1);
  if (end) *end = close;
  return json.substr(open + 1, close - open - 1);
}

struct Rule {
  std::vector<std::string> names;
  std::string action;
};

std::vector<Rule> rulesOf(const std::string& json) {
  std::vector<Rule> rules;
  for (size_t at = json.find("\"names\""); at != std::string::npos; at = json.find("\"names\"", at + 1)) {
    Rule rule;
    const size_t close = json.find(']', at);
    for (size_t q = json.find('"', json.find('[', at)); q < close; q = json.find('"', q + 1)) {
      const size_t qEnd = json.find('"', q + 1);
      rule.names.push_back(json.substr(q + 1, qEnd - q - 1));
      q = qEnd;
    }
    rule.action = stringAfter(json, "action", close);
    rules.push_back(std::move(rule));
  }
  return rules;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || std::strcmp(argv[2], "--") != 0) die("usage: seccomp_exec PROFILE.json -- COMMAND [ARG...]");
  std::ifstream in(argv[1]);
  if (!in) die(std::string("cannot read ") + argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  const std::string json = text.str();

  if (stringAfter(json, "defaultAction", 0) != "SCMP_ACT_ERRNO") die("only defaultAction SCMP_ACT_ERRNO is read");
  const size_t errnoAt = json.find("\"defaultErrnoRet\"");
  const int errnoRet = errnoAt == std::string::npos ? EPERM : std::atoi(json.c_str() + json.find(':', errnoAt) + 1);
  scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ERRNO(static_cast<uint32_t>(errnoRet)));
  if (filter == nullptr) die("seccomp_init failed");
  for (const Rule& rule : rulesOf(json)) {
    if (rule.action != "SCMP_ACT_ALLOW") die("only SCMP_ACT_ALLOW rules are read, not " + rule.action);
    for (const std::string& name : rule.names) {
      const int number = seccomp_syscall_resolve_name(name.c_str());
      if (number == __NR_SCMP_ERROR) continue;
      if (int rc = seccomp_rule_add(filter, SCMP_ACT_ALLOW, number, 0); rc != 0) {
        die("cannot allow " + name + ": " + std::strerror(-rc));
      }
    }
  }
  if (int rc = seccomp_load(filter); rc != 0) die(std::string("seccomp_load: ") + std::strerror(-rc));
  seccomp_release(filter);
  execvp(argv[3], argv + 3);
  die(std::string("cannot run ") + argv[3] + ": " + std::strerror(errno));
}
