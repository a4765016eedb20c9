// The attach client against real JVMs (JDK 17, and JDK 25 when installed): agent loading with options, reply
// parsing, jcmd, agent reuse, non-root and namespaced JVMs, and every refusal path. Needs root.
#include <grp.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <set>
#include <thread>

#include "test_config.h"
#include "tests/attach/test_processes.h"
#include "tests/support/private_tmp.h"
#include "tests/support/readable_paths.h"
#include "userspace/attach/hotspot_vm.h"
#include "userspace/proc/maps.h"

namespace jfrbpf::attach {
namespace {

using namespace std::chrono_literals;
using jfrbpf::test::ChildProcess;
using test::childOptions;
using test::waitForOutput;
using test::ScratchDir;

constexpr auto kStartupTimeout = 30s;
constexpr std::string_view kWarning = "WARNING: A JVM TI agent has been loaded dynamically";

template <typename Call>
AttachError expectAttachError(Call&& call) {
  try {
    call();
  } catch (const AttachError& error) {
    return error;
  }
  ADD_FAILURE() << "no AttachError thrown";
  return AttachError(AttachFailure::ProtocolError, "none");
}

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

size_t occurrences(std::string_view text, std::string_view part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string_view::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

// Trigger files must be gone once an attach has finished, wherever they were created.
void expectNoTriggers(pid_t pid, pid_t namespacePid) {
  const std::string name = ".attach_pid" + std::to_string(namespacePid);
  const std::string root = "/proc/" + std::to_string(pid) + "/root";
  EXPECT_FALSE(test::pathExists(root + "/tmp/" + name));
  EXPECT_FALSE(test::pathExists("/proc/" + std::to_string(pid) + "/cwd/" + name));
}

std::vector<std::string> mappedAgentPaths(pid_t pid) {
  std::set<std::string> paths;
  for (const proc::Mapping& file : TargetProcess::open(pid).mappedFiles()) {
    if (proc::baseName(file.path).starts_with(kAgentFileNamePrefix)) paths.insert(file.path);
  }
  return {paths.begin(), paths.end()};
}

bool signalPending(pid_t pid, int signo) {
  std::string status = test::fileContents("/proc/" + std::to_string(pid) + "/status");
  for (const char* key : {"SigPnd:", "ShdPnd:"}) {
    size_t at = status.find(key);
    if (at == std::string::npos) continue;
    uint64_t mask = std::stoull(status.substr(at + std::strlen(key)), nullptr, 16);
    if ((mask >> (signo - 1)) & 1) return true;
  }
  return false;
}

class AttachJvm : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root (attaching as another user, /proc/PID/root)";
    if (GetParam() == 25 && !test::haveJdk25()) GTEST_SKIP() << "no JDK 25 installed";
  }
  std::string jdkHome() const { return GetParam() == 25 ? jfrbpf::test::kJdk25Home : jfrbpf::test::kJdkHome; }

  std::unique_ptr<ChildProcess> startJvm(const std::vector<std::string>& jvmArgs = {}) {
    auto jvm = std::make_unique<ChildProcess>(test::javaCommand(jdkHome(), jvmArgs), childOptions(scratch_.path()));
    if (!waitForOutput(*jvm, "ready", kStartupTimeout)) {
      ADD_FAILURE() << "JVM did not start: " << jvm->stdoutText();
      return nullptr;
    }
    return jvm;
  }

  ScratchDir scratch_;
};

TEST_P(AttachJvm, LoadsTheAgentWithItsOptionsAndCleansUp) {
  auto jvm = startJvm();
  ASSERT_TRUE(jvm);
  HotSpotVm vm = HotSpotVm::inspect(jvm->pid());
  EXPECT_EQ(vm.facts().javaFeatureVersion, GetParam());
  EXPECT_EQ(vm.facts().attachEnabled, true);
  EXPECT_TRUE(vm.facts().perfDataAvailable);
  EXPECT_TRUE(contains(vm.facts().javaCommand, "Sleeper"));
  EXPECT_TRUE(vm.facts().loadedAgentPath.empty());
  EXPECT_EQ(vm.facts().loadingAgentPrintsWarning(), GetParam() >= 21);

  const std::string options = scratch_.file("agent.out") + ",channel=abc;version=1";
  std::string stagedDirectory;
  {
    StagedAgent agent = vm.loadAgentLibrary(test::testAgentPath(), options);
    EXPECT_FALSE(agent.reused());
    stagedDirectory = std::filesystem::path(agent.pathInTarget()).parent_path();
    // Gone as soon as the JVM loaded it: a crash of jfrbpf from here on leaves nothing in the target's /tmp.
    EXPECT_FALSE(test::pathExists(stagedDirectory));
    EXPECT_EQ(test::fileContents(scratch_.file("agent.out")), options + "\n");
    expectNoTriggers(jvm->pid(), jvm->pid());
    EXPECT_EQ(mappedAgentPaths(jvm->pid()), std::vector<std::string>{agent.pathInTarget()});
  }
  EXPECT_FALSE(test::pathExists(stagedDirectory));
  EXPECT_EQ(contains(jvm->stdoutText(), kWarning), GetParam() >= 21) << jvm->stdoutText();
}

TEST_P(AttachJvm, SecondAttachReusesTheMappedAgent) {
  auto jvm = startJvm();
  ASSERT_TRUE(jvm);
  const std::string options = scratch_.file("agent.out") + ",second";
  std::string firstPath;
  {
    StagedAgent first = HotSpotVm::inspect(jvm->pid()).loadAgentLibrary(test::testAgentPath(), options);
    firstPath = first.pathInTarget();
  }  // the recording ended: the copy is deleted, the JVM keeps its mapping
  HotSpotVm again = HotSpotVm::inspect(jvm->pid());
  EXPECT_EQ(again.facts().loadedAgentPath, firstPath);
  EXPECT_FALSE(again.facts().loadingAgentPrintsWarning());
  StagedAgent second = again.loadAgentLibrary(test::testAgentPath(), options);
  EXPECT_TRUE(second.reused());
  EXPECT_EQ(second.pathInTarget(), firstPath);
  EXPECT_EQ(test::fileContents(scratch_.file("agent.out")),
            options + "\n" + options + "\n");                                    // Agent_OnAttach ran twice
  EXPECT_EQ(mappedAgentPaths(jvm->pid()), std::vector<std::string>{firstPath});  // one copy mapped
  EXPECT_EQ(occurrences(jvm->stdoutText(), kWarning), GetParam() >= 21 ? 1u : 0u) << jvm->stdoutText();
  expectNoTriggers(jvm->pid(), jvm->pid());
}

TEST_P(AttachJvm, ReportsTheAgentsNonZeroReturnCode) {
  auto jvm = startJvm();
  ASSERT_TRUE(jvm);
  HotSpotVm vm = HotSpotVm::inspect(jvm->pid());
  AttachError error = expectAttachError([&] { vm.load(test::failingAgentPath(), true, scratch_.file("agent.out")); });
  EXPECT_EQ(error.kind(), AttachFailure::AgentLoadFailed);
  EXPECT_TRUE(contains(error.what(), "Agent_OnAttach returned 42")) << error.what();
  EXPECT_EQ(test::fileContents(scratch_.file("agent.out")), scratch_.file("agent.out") + "\n");
}

TEST_P(AttachJvm, ReportsTheJvmsReasonForAMissingLibrary) {
  auto jvm = startJvm();
  ASSERT_TRUE(jvm);
  AttachError error =
      expectAttachError([&] { HotSpotVm::inspect(jvm->pid()).load("/nonexistent/libjfrbpf-nothing.so", true, ""); });
  EXPECT_EQ(error.kind(), AttachFailure::AgentLoadFailed);
  EXPECT_TRUE(contains(error.what(), "cannot open shared object file")) << error.what();
}

TEST_P(AttachJvm, RunsJcmdCommands) {
  auto jvm = startJvm();
  ASSERT_TRUE(jvm);
  HotSpotVm vm = HotSpotVm::inspect(jvm->pid());
  std::string version = vm.jcmd("VM.version");
  EXPECT_TRUE(contains(version, "JDK " + std::to_string(GetParam()))) << version;
  EXPECT_TRUE(contains(vm.jcmd("VM.system_properties"), "java.home=")) << "properties";
  AttachError unknown = expectAttachError([&] { vm.jcmd("VM.no_such_command"); });
  EXPECT_EQ(unknown.kind(), AttachFailure::CommandFailed);
  EXPECT_TRUE(contains(unknown.what(), "Unknown diagnostic command")) << unknown.what();
  Reply properties = vm.execute("properties", {"", "", ""});
  EXPECT_EQ(properties.status, 0);
  EXPECT_TRUE(contains(properties.text, "java.vm.version=")) << properties.text.substr(0, 200);
  expectNoTriggers(jvm->pid(), jvm->pid());
}

TEST_P(AttachJvm, RefusesDisabledAttachWithoutSignalling) {
  for (const char* perfData : {"-XX:+UsePerfData", "-XX:-UsePerfData"}) {
    SCOPED_TRACE(perfData);
    auto jvm = startJvm({"-XX:+DisableAttachMechanism", perfData});
    ASSERT_TRUE(jvm);
    HotSpotVm vm = HotSpotVm::inspect(jvm->pid());
    EXPECT_EQ(vm.facts().perfDataAvailable, std::string_view(perfData) == "-XX:+UsePerfData");
    EXPECT_EQ(vm.facts().attachEnabled, false);
    AttachError error = expectAttachError([&] { vm.jcmd("VM.version"); });
    EXPECT_EQ(error.kind(), AttachFailure::AttachDisabled);
    EXPECT_TRUE(contains(error.what(), "-XX:+DisableAttachMechanism")) << error.what();
    EXPECT_FALSE(signalPending(jvm->pid(), SIGQUIT));
    std::this_thread::sleep_for(200ms);
    EXPECT_FALSE(contains(jvm->stdoutText(), "Full thread dump")) << "a SIGQUIT reached the JVM";
    expectNoTriggers(jvm->pid(), jvm->pid());
  }
}

TEST_P(AttachJvm, RefusesAgentsEarlyWhenDynamicLoadingIsDisabled) {
  if (GetParam() < 21) GTEST_SKIP() << "-XX:-EnableDynamicAgentLoading exists from JDK 21";
  auto jvm = startJvm({"-XX:-EnableDynamicAgentLoading"});
  ASSERT_TRUE(jvm);
  HotSpotVm vm = HotSpotVm::inspect(jvm->pid());
  EXPECT_EQ(vm.facts().dynamicAgentLoadingFlag, false);
  AttachError error =
      expectAttachError([&] { vm.loadAgentLibrary(test::testAgentPath(), scratch_.file("agent.out")); });
  EXPECT_EQ(error.kind(), AttachFailure::AgentLoadFailed);
  EXPECT_TRUE(contains(error.what(), "-XX:-EnableDynamicAgentLoading")) << error.what();
  EXPECT_FALSE(test::pathExists(scratch_.file("agent.out")));
  // Commands other than "load" still work.
  EXPECT_TRUE(contains(vm.jcmd("VM.version"), "JDK"));
}

INSTANTIATE_TEST_SUITE_P(Attach, AttachJvm, ::testing::Values(17, 25),
                         [](const ::testing::TestParamInfo<int>& info) { return "jdk" + std::to_string(info.param); });

class AttachJvmSpecial : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root (attaching as another user, /proc/PID/root)";
  }
  ScratchDir scratch_;
};

TEST_F(AttachJvmSpecial, ReportsAReplyTimeoutFromASlowAgent) {
  ChildProcess jvm(test::javaCommand(jfrbpf::test::kJdkHome), childOptions(scratch_.path()));
  ASSERT_TRUE(waitForOutput(jvm, "ready", kStartupTimeout)) << jvm.stdoutText();
  HotSpotVm vm = HotSpotVm::inspect(jvm.pid());
  AttachTimeouts impatient{kDefaultListenerTimeout, 500ms};
  AttachError error = expectAttachError(
      [&] { vm.load(test::testAgentPath(), true, scratch_.file("agent.out") + ",sleep-ms=2000", impatient); });
  EXPECT_EQ(error.kind(), AttachFailure::NotResponding);
  EXPECT_TRUE(contains(error.what(), "Agent_OnAttach")) << error.what();
  // The JVM is fine afterwards: the next request is served once the slow agent returns.
  EXPECT_TRUE(contains(vm.jcmd("VM.version"), "JDK 17"));
}

TEST_F(AttachJvmSpecial, ReportsAStoppedJvmAsNotResponding) {
  ChildProcess jvm(test::javaCommand(jfrbpf::test::kJdkHome), childOptions(scratch_.path()));
  ASSERT_TRUE(waitForOutput(jvm, "ready", kStartupTimeout)) << jvm.stdoutText();
  HotSpotVm vm = HotSpotVm::inspect(jvm.pid());
  ASSERT_EQ(::kill(jvm.pid(), SIGSTOP), 0);
  while (vm.process().status().state != 'T') std::this_thread::sleep_for(10ms);
  AttachError error = expectAttachError([&] { vm.jcmd("VM.version", {10s, 1000ms}); });
  // Told before any SIGQUIT (which would wait, pending, for the SIGCONT), not after the listener timeout.
  EXPECT_FALSE(signalPending(jvm.pid(), SIGQUIT));
  ::kill(jvm.pid(), SIGCONT);
  EXPECT_EQ(error.kind(), AttachFailure::NotResponding);
  EXPECT_TRUE(contains(error.what(), "stopped")) << error.what();
  expectNoTriggers(jvm.pid(), jvm.pid());
}

TEST_F(AttachJvmSpecial, RejectsANonJavaProcessWithoutSignallingIt) {
  ChildProcess sleeper({"sleep", "100"}, childOptions());
  while (TargetProcess::open(sleeper.pid()).status().name != "sleep") std::this_thread::sleep_for(10ms);
  AttachError error = expectAttachError([&] { HotSpotVm::inspect(sleeper.pid()); });
  EXPECT_EQ(error.kind(), AttachFailure::NotHotSpot);
  EXPECT_TRUE(contains(error.what(), "not a HotSpot JVM")) << error.what();
  EXPECT_FALSE(signalPending(sleeper.pid(), SIGQUIT));
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(::waitpid(sleeper.pid(), nullptr, WNOHANG), 0) << "the process died: was it sent SIGQUIT?";
}

TEST_F(AttachJvmSpecial, UsesTheRunningListenerOfAJvmWithoutSignalHandlers) {
  // -Xrs: HotSpot installs no SIGQUIT handler (a SIGQUIT would kill it) but starts its listener at startup.
  ChildProcess jvm(test::javaCommand(jfrbpf::test::kJdkHome, {"-Xrs"}), childOptions(scratch_.path()));
  ASSERT_TRUE(waitForOutput(jvm, "ready", kStartupTimeout)) << jvm.stdoutText();
  HotSpotVm vm = HotSpotVm::inspect(jvm.pid());
  ASSERT_FALSE(vm.process().status().catches(SIGQUIT));
  EXPECT_TRUE(contains(vm.jcmd("VM.version"), "JDK 17"));
  EXPECT_TRUE(vm.process().alive());
  expectNoTriggers(jvm.pid(), jvm.pid());
  // With -Xrs SIGTERM kills the JVM without its exit handlers, which would have removed the socket.
  const std::string socket = "/tmp/.java_pid" + std::to_string(jvm.pid());
  jvm.stop();
  ::unlink(socket.c_str());
}

TEST_F(AttachJvmSpecial, RefusesToSignalALookalikeWithoutAHandler) {
  std::filesystem::copy_file(test::fakeJvmPath(), scratch_.file("libjvm.so"));
  ChildProcess fake({test::fakeJvmPath(), scratch_.file("libjvm.so")}, childOptions(scratch_.path()));
  ASSERT_TRUE(waitForOutput(fake, "ready", kStartupTimeout)) << fake.stdoutText();
  HotSpotVm vm = HotSpotVm::inspect(fake.pid());
  EXPECT_EQ(vm.facts().libjvmPath, scratch_.file("libjvm.so"));
  EXPECT_FALSE(vm.facts().perfDataAvailable);
  EXPECT_EQ(vm.facts().attachEnabled, std::nullopt);
  AttachError error = expectAttachError([&] { vm.jcmd("VM.version"); });
  EXPECT_EQ(error.kind(), AttachFailure::NotReady);
  EXPECT_TRUE(contains(error.what(), "no SIGQUIT handler")) << error.what();
  EXPECT_TRUE(vm.process().alive());
  EXPECT_FALSE(signalPending(fake.pid(), SIGQUIT));
  expectNoTriggers(fake.pid(), fake.pid());
}

TEST_F(AttachJvmSpecial, ReportsMissingPrivilegesToAnUnprivilegedCaller) {
  ChildProcess jvm(test::javaCommand(jfrbpf::test::kJdkHome), childOptions(scratch_.path()));
  ASSERT_TRUE(waitForOutput(jvm, "ready", kStartupTimeout)) << jvm.stdoutText();
  // The attach runs in a child that gives up root first; it reports the error kind through its exit code.
  std::string messageFile = scratch_.file("message");
  pid_t caller = ::fork();
  if (caller == 0) {
    int code = 2;
    if (::setgroups(0, nullptr) == 0 && ::setgid(65534) == 0 && ::setuid(65534) == 0) {
      try {
        HotSpotVm::inspect(jvm.pid()).jcmd("VM.version");
        code = 3;
      } catch (const AttachError& error) {
        if (FILE* out = std::fopen(messageFile.c_str(), "w")) {
          std::fputs(error.what(), out);
          std::fclose(out);
        }
        code = error.kind() == AttachFailure::PermissionDenied ? 0 : 1;
      } catch (...) {
        code = 4;
      }
    }
    ::_exit(code);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(caller, &status, 0), caller);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << test::fileContents(messageFile);
  EXPECT_TRUE(contains(test::fileContents(messageFile), "root")) << test::fileContents(messageFile);
}

// A dedicated unprivileged user for the JVM, created once; nullopt when that is impossible here.
std::optional<passwd> testUser() {
  constexpr const char* kName = "jfrbpf-attach-test";
  if (::getpwnam(kName) == nullptr) {
    std::string command =
        std::string("useradd --system --no-create-home --shell /usr/sbin/nologin ") + kName + " >/dev/null 2>&1";
    if (std::system(command.c_str()) != 0) return std::nullopt;
  }
  passwd* entry = ::getpwnam(kName);
  if (entry == nullptr) return std::nullopt;
  return *entry;
}

TEST_F(AttachJvmSpecial, AttachesToAJvmOfAnotherUser) {
  auto user = testUser();
  if (!user) GTEST_SKIP() << "cannot create a test user with useradd";
  if (!test::pathExists("/usr/bin/setpriv")) GTEST_SKIP() << "setpriv is not installed";
  std::vector<std::string> command = {"setpriv", "--reuid=" + std::to_string(user->pw_uid),
                                      "--regid=" + std::to_string(user->pw_gid), "--clear-groups"};
  for (const std::string& arg : test::javaCommand(jfrbpf::test::kJdkHome)) command.push_back(arg);
  jfrbpf::test::makeJavaPathsReadable(command);
  // Working directory "/" is not writable for that user, so the trigger has to go to /tmp.
  ChildProcess jvm(command, childOptions("/"));
  ASSERT_TRUE(waitForOutput(jvm, "ready", kStartupTimeout)) << jvm.stdoutText();
  HotSpotVm vm = HotSpotVm::inspect(jvm.pid());
  EXPECT_EQ(vm.target().effectiveUid, user->pw_uid);
  EXPECT_EQ(vm.facts().attachEnabled, true);
  const std::string options = scratch_.file("agent.out") + ",user";
  StagedAgent agent = vm.loadAgentLibrary(test::testAgentPath(), options);
  EXPECT_EQ(test::fileContents(scratch_.file("agent.out")), options + "\n");
  EXPECT_TRUE(contains(vm.jcmd("VM.version"), "JDK 17"));
  expectNoTriggers(jvm.pid(), jvm.pid());
  jvm.stop();
  ::rmdir(("/tmp/hsperfdata_" + std::string(user->pw_name)).c_str());  // the JVM's, now empty
}

TEST_F(AttachJvmSpecial, AttachesIntoPrivatePidMountAndNetworkNamespaces) {
  if (!test::pathExists("/usr/bin/unshare")) GTEST_SKIP() << "unshare is not installed";
  // sh stays pid 1 of the new pid namespace, so java gets a namespace pid different from ours; /tmp is a
  // private tmpfs the host cannot see.
  std::vector<std::string> command = {"unshare",
                                      "--pid",
                                      "--mount",
                                      "--net",
                                      "--fork",
                                      "--mount-proc",
                                      "--kill-child",
                                      "sh",
                                      "-c",
                                      jfrbpf::test::privateTmpMounts() + "cd /tmp && \"$@\"; :",
                                      "sh"};
  for (const std::string& arg : test::javaCommand(jfrbpf::test::kJdkHome)) command.push_back(arg);
  ChildProcess container(command, childOptions());
  if (!waitForOutput(container, "ready", kStartupTimeout)) {
    GTEST_SKIP() << "cannot start a JVM in new namespaces here: " << container.stdoutText();
  }
  pid_t java = test::findDescendant(container.pid(), "java", 5s);
  ASSERT_GT(java, 0);
  HotSpotVm vm = HotSpotVm::inspect(java);
  EXPECT_TRUE(vm.target().otherMountNamespace);
  EXPECT_TRUE(vm.target().otherPidNamespace);
  EXPECT_TRUE(vm.target().otherNetNamespace);
  EXPECT_NE(vm.target().namespacePid, java);
  EXPECT_GT(vm.target().namespacePid, 1);
  EXPECT_TRUE(vm.facts().perfDataAvailable);  // read through the target's private /tmp

  const std::string root = "/proc/" + std::to_string(java) + "/root";
  const std::string options = "/tmp/agent.out,namespaced";  // a path in the JVM's own view
  std::string stagedPath;
  {
    StagedAgent agent = vm.loadAgentLibrary(test::testAgentPath(), options);
    stagedPath = agent.pathInTarget();
    // Copied into the JVM's /tmp, not the host's, and removed there as soon as the JVM mapped it.
    EXPECT_EQ(mappedAgentPaths(java), std::vector<std::string>{stagedPath});
    EXPECT_FALSE(test::pathExists(root + stagedPath));
    EXPECT_FALSE(test::pathExists(stagedPath));
    EXPECT_EQ(test::fileContents(root + "/tmp/agent.out"), options + "\n");
    expectNoTriggers(java, vm.target().namespacePid);
  }
  EXPECT_FALSE(test::pathExists(root + std::filesystem::path(stagedPath).parent_path().string()));
  EXPECT_TRUE(contains(vm.jcmd("VM.version"), "JDK 17"));
}

}  // namespace
}  // namespace jfrbpf::attach
