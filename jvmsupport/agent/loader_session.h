#pragma once
// One loader's session with the agent: its channel, the bounded ring of records queued for it, the commands
// it sent, and what it was told last (thread names, losses). The agent holds kMaxSessions of them; a slot is
// reused once its session closed.
#include <atomic>
#include <cstdint>

#include "jvmsupport/agent/agent_options.h"
#include "jvmsupport/agent/command_reader.h"
#include "jvmsupport/agent/record_ring.h"
#include "jvmsupport/agent/thread_reporter.h"

namespace jfrbpf::agent {

struct LoaderSession {
  // Nonzero while the session is open (any thread): producers queue only for open sessions. Unique for the
  // agent's life; the loader's trace probe knows its session by this number.
  std::atomic<uint32_t> number{0};
  RecordRing ring;

  // Agent thread only.
  int fd = -1;
  bool broken = false;
  bool launched = false;  // the -agentpath session of a JVM started by its loader: only it may resume VMInit
  AgentOptions options;
  CommandReader commands;
  ThreadNamePoller namePoller;
  uint64_t lostReported = 0;
  bool resyncWanted = false;
  int resyncs = 0;
  uint64_t lastResyncNs = 0;
  uint64_t lastPeriodicNs = 0;

  bool open() const { return number.load(std::memory_order_acquire) != 0; }
};

}  // namespace jfrbpf::agent
