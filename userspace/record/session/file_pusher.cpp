#include "userspace/record/session/file_pusher.h"

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <exception>

#include "base/error.h"
#include "userspace/push/push_credentials.h"
#include "userspace/push/recording_upload.h"

namespace jfrbpf::record {
namespace {

constexpr int64_t kFirstRetryNs = 1'000'000'000;
constexpr int64_t kLongestRetryNs = 30'000'000'000;

int64_t monotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1'000'000'000 + ts.tv_nsec;
}

// "1733000000000000000-1234-demo.DemoApp.jfr" -> "1234-demo.DemoApp.jfr": the file's own name.
std::string recordingName(const std::string& spooled) {
  const size_t dash = spooled.find('-');
  return dash == std::string::npos ? spooled : spooled.substr(dash + 1);
}

}  // namespace

struct FilePusher::Destination {
  Destination(const push::PushDestination& d, std::vector<std::string> h, const PushOptions& options, int outputDirectory,
              const std::string& outputPath)
      : where(d),
        headers(std::move(h)),
        client(options.caFile, options.timeoutNs),
        spool(outputDirectory, outputPath, d.spoolName(), options.spoolBytes) {
    counts.destination = d.name();
  }

  push::PushDestination where;
  std::vector<std::string> headers;
  push::HttpClient client;  // used by `thread` only
  PushSpool spool;
  PushCounts counts;
  int64_t retryAt = 0;  // CLOCK_MONOTONIC
  int64_t backoffNs = 0;
  bool failing = false;
  std::thread thread;
};

FilePusher::FilePusher(const PushOptions& options, int outputDirectory, const std::string& outputPath) {
  const push::CredentialSource credentials = push::CredentialSource::load(options.credentialsFile);
  for (const push::PushDestination& d : options.destinations) {
    destinations_.push_back(std::make_unique<Destination>(d, push::headersFor(d, credentials), options,
                                                          outputDirectory, outputPath));
    if (const size_t left = destinations_.back()->spool.files().size(); left > 0) {
      say(d.name() + ": " + std::to_string(left) + " file" + (left == 1 ? "" : "s") +
          " an earlier recording did not deliver, sent first");
    }
  }
  running_ = destinations_.size();
  for (auto& d : destinations_) d->thread = std::thread([this, &d = *d] { run(d); });
}

FilePusher::~FilePusher() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    abort_ = true;
  }
  wake_.notify_all();
  stopThreads();
}

void FilePusher::stopThreads() {
  for (auto& d : destinations_) {
    if (d->thread.joinable()) d->thread.join();
  }
}

void FilePusher::fileFinished(const std::string& path) {
  {
    std::lock_guard lock(mutex_);
    for (auto& d : destinations_) {
      try {
        d->counts.dropped += d->spool.add(path);
      } catch (const Error& e) {
        ++d->counts.failed;
        d->counts.lastError = e.what();
        say(d->where.name() + ": " + e.what());
      }
    }
  }
  wake_.notify_all();
}

std::vector<std::string> FilePusher::takeMessages() {
  std::lock_guard lock(mutex_);
  return std::exchange(messages_, {});
}

void FilePusher::say(std::string message) { messages_.push_back("push to " + std::move(message)); }

void FilePusher::run(Destination& d) {
  std::unique_lock lock(mutex_);
  while (!abort_) {
    const int64_t now = monotonicNs();
    if (!d.spool.files().empty() && d.retryAt <= now) {
      sendOldest(d, lock);
      continue;
    }
    if (stopping_ && d.spool.files().empty()) break;
    if (d.spool.files().empty()) {
      wake_.wait(lock);
    } else {
      wake_.wait_for(lock, std::chrono::nanoseconds(d.retryAt - now));
    }
  }
  if (--running_ == 0) finished_.notify_all();
}

void FilePusher::sendOldest(Destination& d, std::unique_lock<std::mutex>& lock) {
  const std::string name = d.spool.files().front().name;
  UniqueFd fd = d.spool.open(name);
  if (!fd) {
    ++d.counts.failed;
    d.counts.lastError = recordingName(name) + " is no longer a recording jfrbpf wrote";
    say(d.where.name() + ": " + d.counts.lastError + "; not sent");
    return;
  }
  d.spool.setSending(name);
  lock.unlock();
  const std::string fdPath = "/proc/self/fd/" + std::to_string(fd.get());
  push::HttpResult result;
  std::string unusable;  // the file cannot be read or converted: retrying will not help
  std::string transient;  // out of memory, say: it may go next time
  try {
    result = push::uploadRecording(d.client, d.where, d.headers, fdPath, abort_);
  } catch (const Error& e) {
    unusable = e.what();
  } catch (const std::exception& e) {
    transient = e.what();
  }
  // What the upload held (the file, its conversion) goes back to the kernel: this thread's malloc arena would
  // keep it, and --memory-limit's budget counts resident memory.
  malloc_trim(0);
  lock.lock();
  d.spool.setSending("");
  if (!unusable.empty() || (transient.empty() && !result.delivered() && !result.retryable())) {
    d.spool.remove(name);
    ++d.counts.failed;
    std::string why = unusable.empty() ? result.describe() : unusable;
    // Messages name the spooled file, not the descriptor it was read through.
    for (size_t at; (at = why.find(fdPath)) != std::string::npos;) why.replace(at, fdPath.size(), recordingName(name));
    d.counts.lastError = why;
    say(d.where.name() + ": " + recordingName(name) + " refused (" + why + "); not sent again");
    return;
  }
  if (transient.empty() && result.delivered()) {
    d.spool.remove(name);
    ++d.counts.delivered;
    if (d.failing) say(d.where.name() + ": delivering again");
    d.failing = false;
    d.backoffNs = 0;
    return;
  }
  if (abort_) return;  // the end's deadline passed: the file stays in the spool
  d.counts.lastError = transient.empty() ? result.describe() : transient;
  d.backoffNs = std::clamp(d.backoffNs * 2, kFirstRetryNs, kLongestRetryNs);
  d.retryAt = monotonicNs() + d.backoffNs;
  if (!d.failing) {
    say(d.where.name() + " failing (" + d.counts.lastError + "); the files wait in " + d.spool.path() +
        " and are tried again");
  }
  d.failing = true;
}

void FilePusher::finish(int64_t timeoutNs, RecordSummary& summary) {
  {
    std::unique_lock lock(mutex_);
    stopping_ = true;
    wake_.notify_all();
    if (!finished_.wait_for(lock, std::chrono::nanoseconds(timeoutNs), [this] { return running_ == 0; })) {
      abort_ = true;
      wake_.notify_all();
    }
  }
  stopThreads();
  for (const PushCounts& c : counts()) summary.pushes.push_back(c);
}

std::vector<PushCounts> FilePusher::counts() const {
  std::lock_guard lock(mutex_);
  std::vector<PushCounts> all;
  for (const auto& d : destinations_) {
    PushCounts c = d->counts;
    c.pending = d->spool.files().size();
    all.push_back(std::move(c));
  }
  return all;
}

}  // namespace jfrbpf::record
