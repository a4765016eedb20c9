#include "jvmsupport/agent/hook_stubs.h"

#include <pthread.h>

#include <atomic>
#include <cstdlib>

#include "jvmsupport/agent/clock.h"
#include "jvmsupport/protocol/timing_records.h"

#if !defined(__x86_64__)
#error "the trace probe stub is written for x86_64"
#endif

// Written in assembly so that the uprobe site is exactly a 5-byte NOP (0f 1f 44 00 00) whatever the
// compiler does, with unwind information (CFI) so that the BPF stack walker steps out of it.
__asm__(".text\n"
        ".p2align 4\n"
        ".globl jfrbpf_method_traced\n"
        ".hidden jfrbpf_method_traced\n"
        ".type jfrbpf_method_traced, @function\n"
        "jfrbpf_method_traced:\n"
        ".cfi_startproc\n"
        ".byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size jfrbpf_method_traced, .-jfrbpf_method_traced\n");

namespace jfrbpf::agent {
namespace {

using protocol::kShadowStackDepth;
using protocol::kShadowStackSearch;
using protocol::TimingRow;
using protocol::TimingTableHeader;

using protocol::kHookSlotMask;
using protocol::kHookTimed;
using protocol::kHookTraced;

// Per thread, in a pthread key (not __thread: its __tls_get_addr would tie the agent to ld.so's version).
// Each entry carries the recording it began in: hook indexes are reused by later recordings, and a thread
// may still be inside a method an earlier recording instrumented.
struct ShadowStack {
  uint32_t depth;  // open invocations, including those beyond kShadowStackDepth
  uint32_t hooks[kShadowStackDepth];
  uint32_t recordings[kShadowStackDepth];
  uint64_t entryNs[kShadowStackDepth];
};

std::atomic<TimingTableHeader*> activeTable{nullptr};
std::atomic<uint32_t> activeRecording{0};
std::atomic<uint64_t> traceThreshold{0};
pthread_key_t stackKey;
pthread_once_t stackKeyOnce = PTHREAD_ONCE_INIT;

void createStackKey() { pthread_key_create(&stackKey, free); }

ShadowStack* shadowStack(bool create) {
  auto* stack = static_cast<ShadowStack*>(pthread_getspecific(stackKey));
  if (stack != nullptr || !create) return stack;
  stack = static_cast<ShadowStack*>(calloc(1, sizeof(ShadowStack)));
  if (stack != nullptr && pthread_setspecific(stackKey, stack) != 0) {
    free(stack);
    stack = nullptr;
  }
  return stack;
}

void count(uint64_t& counter, uint64_t n = 1) {
  std::atomic_ref<uint64_t>(counter).fetch_add(n, std::memory_order_relaxed);
}

void addInvocation(TimingTableHeader* table, uint32_t slot, uint64_t duration) {
  uint32_t row = slot - table->slotBase;
  if (slot < table->slotBase || row >= table->slotCount) {
    count(table->counters.badSlot);
    return;
  }
  TimingRow& r = protocol::timingRows(table)[row];
  count(r.invocations);
  count(r.totalNs, duration);
  const uint64_t bounded = duration != 0 ? duration : 1;
  std::atomic_ref<uint64_t> minNs(r.minNs), maxNs(r.maxNs);
  uint64_t seen = minNs.load(std::memory_order_relaxed);
  while ((seen == 0 || bounded < seen) && !minNs.compare_exchange_weak(seen, bounded, std::memory_order_relaxed)) {
  }
  seen = maxNs.load(std::memory_order_relaxed);
  while (duration > seen && !maxNs.compare_exchange_weak(seen, duration, std::memory_order_relaxed)) {
  }
}

}  // namespace

void armHooks(TimingTableHeader* table, uint64_t traceThresholdNs) {
  pthread_once(&stackKeyOnce, createStackKey);
  traceThreshold.store(traceThresholdNs, std::memory_order_relaxed);
  activeRecording.fetch_add(1, std::memory_order_relaxed);
  activeTable.store(table, std::memory_order_release);
}

}  // namespace jfrbpf::agent

using namespace jfrbpf::agent;

extern "C" void jfrbpf_method_enter(JNIEnv*, jclass, jint hookIndex) {
  TimingTableHeader* table = activeTable.load(std::memory_order_acquire);
  if (table == nullptr) return;
  ShadowStack* stack = shadowStack(/*create=*/true);
  if (stack == nullptr) {
    count(table->counters.overflow);
    return;
  }
  const uint32_t depth = stack->depth;
  if (depth < kShadowStackDepth) {
    stack->hooks[depth] = static_cast<uint32_t>(hookIndex);
    stack->recordings[depth] = activeRecording.load(std::memory_order_relaxed);
    stack->entryNs[depth] = monotonicNs();  // last: the stub's own cost stays out of the duration
  } else {
    count(table->counters.overflow);
  }
  stack->depth = depth + 1;
}

extern "C" void jfrbpf_method_exit(JNIEnv*, jclass, jint hookIndex) {
  const uint64_t now = monotonicNs();  // first, for the same reason
  TimingTableHeader* table = activeTable.load(std::memory_order_acquire);
  if (table == nullptr) return;
  ShadowStack* stack = shadowStack(/*create=*/false);
  if (stack == nullptr || stack->depth == 0) {
    count(table->counters.unmatchedExits);
    return;
  }
  const uint32_t depth = stack->depth;
  if (depth > kShadowStackDepth) {
    stack->depth = depth - 1;  // its enter was beyond the stack and counted as overflow
    return;
  }
  const auto hook = static_cast<uint32_t>(hookIndex);
  uint32_t at = depth;
  for (uint32_t i = 0; i < kShadowStackSearch && i < depth; ++i) {
    if (stack->hooks[depth - 1 - i] == hook) {
      at = depth - 1 - i;
      break;
    }
  }
  if (at == depth) {
    count(table->counters.unmatchedExits);
    return;
  }
  if (depth - 1 > at) count(table->counters.orphanedEnters, depth - 1 - at);
  const uint64_t start = stack->entryNs[at];
  stack->depth = at;
  if (stack->recordings[at] != activeRecording.load(std::memory_order_relaxed)) {
    count(table->counters.unmatchedExits);  // an earlier recording's invocation, or another method's enter
    return;
  }
  const uint64_t duration = now > start ? now - start : 0;
  if ((hook & kHookTimed) != 0) addInvocation(table, hook & kHookSlotMask, duration);
  if ((hook & kHookTraced) != 0 && duration >= traceThreshold.load(std::memory_order_relaxed)) {
    count(table->counters.tracesCalled);
    jfrbpf_method_traced(hook, start, duration, 0, 0);
  }
}
