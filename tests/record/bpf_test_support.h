#pragma once
// Whether the real BPF end-to-end tests can run here; they skip with this reason otherwise.
#include <unistd.h>

#include <string>

namespace jfrbpf::test {

inline std::string bpfUnavailableReason() {
  if (geteuid() != 0) return "needs root for BPF and perf events (run the tests with sudo)";
  if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) return "kernel has no BTF (/sys/kernel/btf/vmlinux)";
  return "";
}

#define JFRBPF_REQUIRE_BPF()                                              \
  do {                                                                    \
    std::string reason = ::jfrbpf::test::bpfUnavailableReason();          \
    if (!reason.empty()) GTEST_SKIP() << reason;                          \
  } while (0)

}  // namespace jfrbpf::test
