#include "userspace/record/jvm/jvm_attachment.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "base/error.h"
#include "base/startup_marks.h"
#include "userspace/attach/attach_error.h"
#include "userspace/record/jvm/jvm_setup.h"

namespace jfrbpf::record {
namespace {

using std::chrono::milliseconds;

// A JVM leaves its "too early" state within a second or two of its start, unless something slows its
// start-up (a large class path, an agent, a busy host): ask often at first, then every quarter second.
constexpr milliseconds kFirstRetry{50};
constexpr milliseconds kRetryWhileStarting{250};
// After this long the user is told once, and the JVM is asked less often: it may run with -Xrs (no
// SIGQUIT handler, ever) or be hung, and each attempt copies the agent into its /tmp.
constexpr auto kLongStart = std::chrono::seconds(30);
constexpr milliseconds kRetryAfterLongStart{30000};

bool tooEarly(attach::AttachFailure kind) {
  return kind == attach::AttachFailure::NotReady || kind == attach::AttachFailure::NotResponding;
}

// Holds one of the recording's attach permits for the length of an attempt.
class Permit {
 public:
  explicit Permit(AttachPermits& permits) : permits_(permits) { permits_.acquire(); }
  ~Permit() { permits_.release(); }
  Permit(const Permit&) = delete;
  Permit& operator=(const Permit&) = delete;

 private:
  AttachPermits& permits_;
};

}  // namespace

JvmAttachment::JvmAttachment(pid_t pid, AttachPermits& permits, jvm::SessionLimits limits)
    : pid_(pid),
      permits_(permits),
      limits_(limits),
      pinned_(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0))),
      stopped_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (!stopped_) throw systemError("eventfd for the attach of JVM " + std::to_string(pid));
  thread_ = std::jthread([this](std::stop_token stop) { run(std::move(stop)); });
}

JvmAttachment::~JvmAttachment() {
  thread_.request_stop();
  const uint64_t one = 1;
  [[maybe_unused]] ssize_t written = ::write(stopped_.get(), &one, sizeof one);
}

bool JvmAttachment::waitUntilDone(milliseconds timeout) const {
  std::unique_lock lock(doneMutex_);
  return doneChanged_.wait_for(lock, timeout, [this] { return done(); });
}

std::unique_ptr<JvmConnection> JvmAttachment::takeConnection() { return std::move(connection_); }

std::vector<std::string> JvmAttachment::takeNotes() {
  std::lock_guard lock(notesMutex_);
  return std::exchange(notes_, {});
}

bool JvmAttachment::pause(milliseconds delay) {
  pollfd fds[2] = {{stopped_.get(), POLLIN, 0}, {pinned_.get(), POLLIN, 0}};
  int ready = ::poll(fds, pinned_ ? 2 : 1, static_cast<int>(delay.count()));
  if (ready > 0 && (fds[1].revents & POLLIN)) jvmExited_ = true;
  return ready <= 0 && !jvmExited_;
}

void JvmAttachment::run(std::stop_token stop) {
  const std::string process = "process " + std::to_string(pid_);
  const auto began = std::chrono::steady_clock::now();
  milliseconds delay = kFirstRetry;
  bool toldLongStart = false;
  jvmExited_ = !pinned_;
  while (!jvmExited_ && !stop.stop_requested()) {
    std::string refusal;
    try {
      Permit permit(permits_);
      attempting_.store(true, std::memory_order_release);
      const auto tried = std::chrono::steady_clock::now();
      connection_ = JvmConnection::attach(pid_, kAgentTimeout, limits_);
      attempting_.store(false, std::memory_order_release);
      startupMark("agent attached");
      if (std::getenv("JFRBPF_DEBUG")) {
        auto ms = [](auto d) { return static_cast<long long>(std::chrono::duration_cast<milliseconds>(d).count()); };
        const auto now = std::chrono::steady_clock::now();
        std::fprintf(stderr, "jfrbpf: [debug] %s, %lld ms: attached (the attempt took %lld ms)\n", process.c_str(),
                     ms(now - began), ms(now - tried));
      }
      if (!connection_->note().empty()) {
        std::lock_guard lock(notesMutex_);
        notes_.push_back(connection_->note());
      }
      waited_ = std::chrono::steady_clock::now() - began;
      break;
    } catch (const attach::AttachError& e) {
      attempting_.store(false, std::memory_order_release);
      if (e.kind() == attach::AttachFailure::NoSuchProcess) {
        jvmExited_ = true;
        break;
      }
      if (!tooEarly(e.kind())) {
        isJvm_ = e.kind() != attach::AttachFailure::NotHotSpot;
        failureNote_ = isJvm_ ? process + ": Java frames unavailable (" + e.what() +
                                    "): recording native and kernel frames only"
                              : process + " is not a HotSpot JVM: recording native and kernel frames";
        break;
      }
      refusal = e.what();
    } catch (const Error& e) {
      attempting_.store(false, std::memory_order_release);
      failureNote_ = process + ": Java frames unavailable (" + e.what() + "): recording native and kernel frames only";
      break;
    }
    if (firstRefusal_.empty()) firstRefusal_ = refusal;
    if (std::getenv("JFRBPF_DEBUG")) {
      const auto since = std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - began).count();
      std::fprintf(stderr, "jfrbpf: [debug] %s, %lld ms: asked too early: %s\n", process.c_str(),
                   static_cast<long long>(since), refusal.c_str());
    }
    if (!toldLongStart && std::chrono::steady_clock::now() - began >= kLongStart) {
      toldLongStart = true;
      std::lock_guard lock(notesMutex_);
      notes_.push_back(process + " cannot take the agent yet after " +
                       std::to_string(std::chrono::duration_cast<std::chrono::seconds>(kLongStart).count()) +
                       " s (" + refusal + "): its samples have native and kernel frames until it can; asking again every " +
                       std::to_string(kRetryAfterLongStart.count() / 1000) + " s");
    }
    if (!pause(delay)) break;
    delay = std::min(delay * 2, toldLongStart ? kRetryAfterLongStart : kRetryWhileStarting);
  }
  if (!connection_ && !jvmExited_ && failureNote_.empty()) {
    failureNote_ = process + ": Java frames unavailable (the recording ended before the JVM could take the agent" +
                   (firstRefusal_.empty() ? std::string() : ": " + firstRefusal_) + ")";
  }
  {
    std::lock_guard lock(doneMutex_);
    done_.store(true, std::memory_order_release);
  }
  doneChanged_.notify_all();
}

}  // namespace jfrbpf::record
