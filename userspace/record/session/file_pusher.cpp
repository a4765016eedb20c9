#include "userspace/record/session/file_pusher.h"

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <ctime>

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
  push::HttpClient client;
  PushSpool spool;
  PushCounts counts;
  int64_t retryAt = 0;  // CLOCK_MONOTONIC
  int64_t backoffNs = 0;
  bool failing = false;
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
  thread_ = std::thread([this] { run(); });
}

FilePusher::~FilePusher() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    abort_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
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

void FilePusher::run() {
  std::unique_lock lock(mutex_);
  size_t turn = 0;
  while (!abort_) {
    const int64_t now = monotonicNs();
    Destination* due = nullptr;
    int64_t wakeAt = INT64_MAX;
    bool pending = false;
    for (size_t i = 0; i < destinations_.size(); ++i) {
      Destination& d = *destinations_[(turn + i) % destinations_.size()];
      if (d.spool.files().empty()) continue;
      pending = true;
      if (d.retryAt <= now) {
        due = &d;
        break;
      }
      wakeAt = std::min(wakeAt, d.retryAt);
    }
    if (due) {
      ++turn;  // the destinations take turns, so that one that is down delays no other
      sendOldest(*due, lock);
      continue;
    }
    if (stopping_ && !pending) break;
    if (wakeAt == INT64_MAX) {
      wake_.wait(lock);
    } else {
      wake_.wait_for(lock, std::chrono::nanoseconds(wakeAt - now));
    }
  }
  done_ = true;
  finished_.notify_all();
}

void FilePusher::sendOldest(Destination& d, std::unique_lock<std::mutex>& lock) {
  const std::string name = d.spool.files().front().name;
  UniqueFd fd = d.spool.open(name);
  if (!fd) {
    ++d.counts.failed;
    say(d.where.name() + ": " + recordingName(name) + " is no longer a file jfrbpf wrote; not sent");
    return;
  }
  d.spool.setSending(name);
  lock.unlock();
  push::HttpResult result;
  std::string unreadable;
  try {
    result = push::uploadRecording(d.client, d.where, d.headers, "/proc/self/fd/" + std::to_string(fd.get()), abort_);
  } catch (const Error& e) {
    unreadable = e.what();
  }
  // What the upload held (the file, its conversion) goes back to the kernel: this thread's malloc arena would
  // keep it, and --memory-limit's budget counts resident memory.
  malloc_trim(0);
  lock.lock();
  d.spool.setSending("");
  if (!unreadable.empty() || (!result.delivered() && !result.retryable())) {
    d.spool.remove(name);
    ++d.counts.failed;
    d.counts.lastError = unreadable.empty() ? result.describe() : unreadable;
    say(d.where.name() + ": " + recordingName(name) + " refused (" + d.counts.lastError + "); not sent again");
    return;
  }
  if (result.delivered()) {
    d.spool.remove(name);
    ++d.counts.delivered;
    if (d.failing) say(d.where.name() + ": delivering again");
    d.failing = false;
    d.backoffNs = 0;
    return;
  }
  if (abort_) return;  // the end's deadline passed: the file stays in the spool
  d.counts.lastError = result.describe();
  d.backoffNs = std::clamp(d.backoffNs * 2, kFirstRetryNs, kLongestRetryNs);
  d.retryAt = monotonicNs() + d.backoffNs;
  if (!d.failing) {
    say(d.where.name() + " failing (" + d.counts.lastError + "); the files wait in " + d.spool.path() +
        " and are tried again");
  }
  d.failing = true;
}

void FilePusher::finish(int64_t timeoutNs, RecordSummary& summary) {
  std::unique_lock lock(mutex_);
  stopping_ = true;
  wake_.notify_all();
  if (!finished_.wait_for(lock, std::chrono::nanoseconds(timeoutNs), [this] { return done_; })) {
    abort_ = true;
    wake_.notify_all();
  }
  lock.unlock();
  if (thread_.joinable()) thread_.join();
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
