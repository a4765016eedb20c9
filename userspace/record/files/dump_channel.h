#pragma once
// `jfrbpf dump` talks to a running recorder over a Unix seqpacket socket, /run/jfrbpf/<recorder pid>.sock
// (directory 0700 and socket 0600, both root's; the recorder also checks that the peer is root,
// SO_PEERCRED). The client sends "dump\n"; the recorder answers with one message per file it has of each target, carrying
// an open descriptor of the file (SCM_RIGHTS) and "LABEL\tBYTES\n": the client reads the first BYTES,
// whole chunks, even of a file still being written or since removed by retention. "end\n" closes the
// answer, "error\tWHY\n" replaces it. "check\n" asks only whether the recording is alive: "end\n" once its
// consumer thread ran a task for it (a liveness probe), without files.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "base/unique_fd.h"

namespace jfrbpf::record {

constexpr const char* kControlDirectory = "/run/jfrbpf";

struct DumpFile {
  std::string label;  // the target's files' name prefix, e.g. "1234-com.example.App"
  UniqueFd fd;        // read-only
  uint64_t bytes = 0; // whole chunks from the start
};

struct DumpRequest {
  UniqueFd client;
  bool checkOnly = false;  // "check\n": answer without files
};

// The recorder's end: listens from construction to destruction (which removes the socket).
class DumpServer {
 public:
  // Throws jfrbpf::Error when the socket cannot be made (the recording goes on without it).
  DumpServer();
  ~DumpServer();
  DumpServer(const DumpServer&) = delete;
  DumpServer& operator=(const DumpServer&) = delete;

  // A root client asking for a dump or a check, if one is waiting; never blocks for long. Others are turned
  // away.
  std::optional<DumpRequest> acceptRequest();
  // Sends `files` (or, with `error` set, only that) and closes the connection. Never throws.
  static void reply(UniqueFd client, const std::vector<DumpFile>& files, const std::string& error = "");
  // A check's answer: the recording is alive, and `status` (lines, e.g. what --push delivered) says how it is.
  static void replyToCheck(UniqueFd client, const std::vector<std::string>& status);

 private:
  std::string path_;
  UniqueFd socket_;
};

// The client's end: the socket of the only recorder running, or of `recorderPid`. Throws jfrbpf::Error
// naming what to do when there is none, or more than one and no pid.
std::string findRecorderSocket(std::optional<pid_t> recorderPid);
// Asks the recorder at `socketPath` for its files. Throws jfrbpf::Error.
std::vector<DumpFile> requestDump(const std::string& socketPath, std::chrono::milliseconds timeout);
// Asks the recorder at `socketPath` whether its recording is alive; returns the lines it says of its state.
// Throws jfrbpf::Error when it is not, or does not answer within `timeout`.
std::vector<std::string> checkRecorder(const std::string& socketPath, std::chrono::milliseconds timeout);

}  // namespace jfrbpf::record
