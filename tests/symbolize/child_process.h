#pragma once
// Runs a helper program with its stdin and stdout on pipes: the symbolizer tests read the addresses it
// prints and send it commands. The destructor kills and reaps it, whatever happened in the test.
#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace jfrbpf::symbolize::test {

class ChildProcess {
 public:
  explicit ChildProcess(const std::vector<std::string>& argv);
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();

  pid_t pid() const { return pid_; }
  // Reads lines until "ready"; returns the "<key> <value>" pairs seen, or nullopt on timeout/exit/error
  // (with the offending output in `error`).
  std::optional<std::map<std::string, std::string>> readUntilReady(std::string& error,
                                                                  std::chrono::seconds timeout = std::chrono::seconds(30));
  void send(const std::string& line);

 private:
  std::optional<std::string> readLine(std::chrono::steady_clock::time_point deadline);

  pid_t pid_ = -1;
  int toChild_ = -1;
  int fromChild_ = -1;
  std::string buffered_;
};

uint64_t parseAddress(const std::string& text);

}  // namespace jfrbpf::symbolize::test
