/* The tests' thread-context variable (OTEP 4947): otel_thread_ctx_v1, exported, each thread's pointer to its
 * context record. Built into an executable and into libraries of each TLS access model (CMakeLists.txt), so
 * that jfrbpf's locator is checked against where the variable really is. */
#include <stdint.h>
#include <stdio.h>

__attribute__((visibility("default"))) __thread void* otel_thread_ctx_v1;

/* Sets this thread's variable (its TLS block exists from then on, even in a dlopen'ed module) and says where
 * it is: "tp=HEX var=HEX", the thread pointer and the variable's address. */
__attribute__((visibility("default"))) void thread_ctx_report(char* out, size_t size) {
  uintptr_t tp;
  __asm__ volatile("mov %%fs:0, %0" : "=r"(tp));
  otel_thread_ctx_v1 = (void*)0x5eed;
  snprintf(out, size, "tp=%lx var=%lx", (unsigned long)tp, (unsigned long)(uintptr_t)&otel_thread_ctx_v1);
}

/* Makes `record` this thread's context (NULL: none), as a writer that swaps the pointer does. */
__attribute__((visibility("default"))) void thread_ctx_set(void* record) { otel_thread_ctx_v1 = record; }
