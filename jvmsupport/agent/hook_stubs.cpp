#include "jvmsupport/agent/hook_stubs.h"

#include <atomic>

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

std::atomic<protocol::TimingTableHeader*> traceCounterTable{nullptr};
std::atomic<uint32_t> traceSession{0};

}  // namespace

void setTraceCounterTable(protocol::TimingTableHeader* table, uint32_t session) {
  traceSession.store(session, std::memory_order_relaxed);
  traceCounterTable.store(table, std::memory_order_release);
}

}  // namespace jfrbpf::agent

extern "C" void jfrbpf_java_method_traced(JNIEnv*, jclass, jint hookIndex, jlong startNs, jlong durationNs) {
  if (auto* table = jfrbpf::agent::traceCounterTable.load(std::memory_order_acquire)) {
    std::atomic_ref<uint64_t>(table->counters.tracesCalled).fetch_add(1, std::memory_order_relaxed);
  }
  jfrbpf_method_traced(static_cast<uint32_t>(hookIndex), static_cast<uint64_t>(startNs), static_cast<uint64_t>(durationNs),
                       0, 0, jfrbpf::agent::traceSession.load(std::memory_order_relaxed));
}
