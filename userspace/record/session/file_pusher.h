#pragma once
// record --push: each finished file of the recording goes to every destination, from a thread per
// destination, so that recording never waits for the network and a backend that hangs delays no other. Each
// destination has its spool (files/push_spool.h): a file is linked there as it is finished, sent oldest
// first, and unlinked once the backend took it (2xx) or refused it for good (push::HttpResult::retryable).
// Anything else (no answer, a timeout, a redirect, 408, 429, 5xx) is tried again after 1 s, then twice as
// long each time up to 30 s, and the files wait in the spool, across a restart of jfrbpf too. What happened
// is said on the terminal once per change (failing, delivering again) and counted.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "userspace/push/http_client.h"
#include "userspace/push/push_destination.h"
#include "userspace/record/config.h"
#include "userspace/record/files/push_spool.h"
#include "userspace/record/summary.h"

namespace jfrbpf::record {

class FilePusher {
 public:
  // Opens each destination's spool in the output directory open at `outputDirectory` (what an earlier run
  // left there is sent first) and starts sending. Throws jfrbpf::Error for credentials that cannot be used,
  // or when a spool cannot be made.
  FilePusher(const PushOptions& options, int outputDirectory, const std::string& outputPath);
  // Stops at once; what is not delivered stays in the spools.
  ~FilePusher();
  FilePusher(const FilePusher&) = delete;
  FilePusher& operator=(const FilePusher&) = delete;

  // A finished file of the recording, from any thread: spooled for each destination at once.
  void fileFinished(const std::string& path);
  // What happened since the last call, for the terminal.
  std::vector<std::string> takeMessages();
  // The recording ended: sends what is pending until everything is delivered or `timeoutNs` passed, then
  // stops. Adds each destination's counts to `summary`.
  void finish(int64_t timeoutNs, RecordSummary& summary);
  std::vector<PushCounts> counts() const;

 private:
  struct Destination;
  void run(Destination& d);
  // Sends the oldest file of `d`; with the lock held on entry and exit, not while sending.
  void sendOldest(Destination& d, std::unique_lock<std::mutex>& lock);
  void say(std::string message);
  void stopThreads();

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable finished_;
  std::vector<std::unique_ptr<Destination>> destinations_;
  std::vector<std::string> messages_;
  bool stopping_ = false;           // finish(): deliver what is pending, then end
  size_t running_ = 0;              // threads that have not ended yet
  std::atomic<bool> abort_{false};  // give up now, even mid-request
};

}  // namespace jfrbpf::record
