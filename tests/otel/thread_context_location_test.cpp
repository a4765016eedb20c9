// Where a process's threads keep otel_thread_ctx_v1 (OTEP 4947), as jfrbpf locates it from the modules' ELF
// files and the process's memory, checked against where the variable really is: each test program reports
// its thread pointer and its variable's address, in every access model the OTEP names (the program's own
// TLS, libraries it links in three models, libraries it loads with dlopen in two). A static location must
// give the address from the thread pointer alone; a dynamic one through the thread's DTV, as BPF will.
#include "userspace/otel/thread_context_location.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/child_process.h"

namespace jfrbpf::otel {
namespace {

using namespace std::chrono_literals;

std::string binary(const std::string& name) { return std::string(OTEL_TEST_BINARIES) + "/" + name; }

struct Case {
  std::vector<std::string> argv;
  std::optional<ThreadContextLocation::Kind> kind;  // nullopt: as the dynamic linker chooses
  std::string module;  // a part of the defining module's path
};

class ThreadContextLocationTest : public ::testing::TestWithParam<std::pair<std::string, Case>> {};

TEST_P(ThreadContextLocationTest, GivesTheVariablesAddressFromTheThreadPointer) {
  const Case& c = GetParam().second;
  test::ChildProcess program(c.argv, {.writableStdin = true});
  const std::optional<std::string> line = program.readLine(30s);
  ASSERT_TRUE(line.has_value()) << "the program did not report";
  unsigned long tp = 0, var = 0;
  ASSERT_EQ(std::sscanf(line->c_str(), "tp=%lx var=%lx", &tp, &var), 2) << *line;

  const std::optional<ThreadContextLocation> location = locateThreadContext(program.pid(), proc::readMaps(program.pid()));
  ASSERT_TRUE(location.has_value());
  if (c.kind) EXPECT_EQ(location->kind, *c.kind);
  EXPECT_NE(location->module.find(c.module), std::string::npos) << location->module;
  if (location->kind == ThreadContextLocation::Kind::kStatic) {
    EXPECT_EQ(tp + location->tpOffset, var) << "tpOffset " << location->tpOffset;
  } else {
    // The thread's DTV, as BPF reads it: tcbhead_t.dtv at tp + 8, 16-byte entries by module id.
    const unwind::ProcessMemory memory(program.pid());
    uint64_t dtv = 0, block = 0;
    ASSERT_TRUE(memory.readU64(tp + 8, dtv));
    ASSERT_TRUE(memory.readU64(dtv + 16 * location->moduleId, block));
    EXPECT_EQ(block + location->offset, var) << "module " << location->moduleId << ", offset " << location->offset;
  }
  // And what is there is what the program stored.
  uint64_t stored = 0;
  ASSERT_TRUE(unwind::ProcessMemory(program.pid()).readU64(var, stored));
  EXPECT_EQ(stored, 0x5eedu);
}

INSTANTIATE_TEST_SUITE_P(
    AccessModels, ThreadContextLocationTest,
    ::testing::Values(
        std::make_pair(std::string("executable"), Case{{binary("thread_ctx_exe")}, ThreadContextLocation::Kind::kStatic, "thread_ctx_exe"}),
        std::make_pair(std::string("linked_general_dynamic"),
                       Case{{binary("thread_ctx_linked_gd")}, ThreadContextLocation::Kind::kDynamic, "libotel_tls_gd"}),
        std::make_pair(std::string("linked_initial_exec"),
                       Case{{binary("thread_ctx_linked_ie")}, ThreadContextLocation::Kind::kStatic, "libotel_tls_ie"}),
        std::make_pair(std::string("linked_tlsdesc"),
                       Case{{binary("thread_ctx_linked_desc")}, ThreadContextLocation::Kind::kStatic, "libotel_tls_desc"}),
        std::make_pair(std::string("dlopen_general_dynamic"),
                       Case{{binary("thread_ctx_dlopen"), binary("libotel_tls_gd.so")},
                            ThreadContextLocation::Kind::kDynamic, "libotel_tls_gd"}),
        std::make_pair(std::string("dlopen_tlsdesc"),
                       // glibc gives a dlopen'ed TLSDESC module static TLS when its surplus has room.
                       Case{{binary("thread_ctx_dlopen"), binary("libotel_tls_desc.so")}, std::nullopt,
                            "libotel_tls_desc"})),
    [](const auto& info) { return info.param.first; });

TEST(ThreadContextLocation, AProcessWithoutTheVariableHasNone) {
  test::ChildProcess program({"/bin/cat"}, {.writableStdin = true});
  std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(locateThreadContext(program.pid(), proc::readMaps(program.pid())).has_value());
}

}  // namespace
}  // namespace jfrbpf::otel
