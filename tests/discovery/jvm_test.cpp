// Discovery of real JVMs: JDK 17 plain, as another user, in its own pid + mount namespace, with attach
// disabled, without hsperfdata; JDK 25 with dynamic agent loading off. Non-JVM processes are not listed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <string>

#include "test_config.h"
#include "tests/discovery/process_state.h"
#include "tests/discovery/test_jvms.h"
#include "tests/support/private_tmp.h"
#include "tests/support/readable_paths.h"
#include "userspace/discovery/discovery.h"
#include "userspace/discovery/hsperfdata.h"
#include "userspace/discovery/jvm_mappings.h"
#include "userspace/discovery/jvm_table.h"
#include "userspace/discovery/perf_data_file.h"
#include "userspace/proc/files.h"
#include "userspace/proc/namespace_ids.h"
#include "userspace/proc/namespaces.h"
#include "userspace/proc/process_dir.h"

namespace jfrbpf::discovery {
namespace {

using discovery_test::childOptions;
using discovery_test::kReadyTimeout;
using test::ChildProcess;
using discovery_test::kSleeperMainClass;
using discovery_test::sleeperCommand;

constexpr const char* kTestUser = "jfrbpf-discovery-test";

std::optional<JvmInfo> discovered(pid_t pid) {
  for (JvmInfo& jvm : discoverJvms().jvms) {
    if (jvm.pid == pid) return std::move(jvm);
  }
  return std::nullopt;
}

std::string ourUserName() {
  passwd* entry = ::getpwuid(::geteuid());
  return entry ? entry->pw_name : std::to_string(::geteuid());
}

std::string canonical(const std::string& path) { return std::filesystem::canonical(path).string(); }

int64_t nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

ContainerInfo ourContainer() {
  return parseContainerInfo(proc::readFileAt(AT_FDCWD, "/proc/self/cgroup", 1 << 16).bytes);
}

// A user for the non-root JVM: created when missing (we are root when this is called).
std::optional<passwd> testUser() {
  if (passwd* entry = ::getpwnam(kTestUser)) return *entry;
  std::string command = std::string("useradd --system --no-create-home --shell /usr/sbin/nologin ") + kTestUser;
  if (std::system(command.c_str()) != 0) return std::nullopt;
  passwd* entry = ::getpwnam(kTestUser);
  return entry ? std::optional<passwd>(*entry) : std::nullopt;
}

TEST(DiscoveryJvm, PlainJdk17) {
  ChildProcess jvm(sleeperCommand(test::kJdkHome, {"-Dtest.marker=plain"}, {"alpha", "beta"}), childOptions());
  ASSERT_TRUE(jvm.awaitLine("ready", kReadyTimeout));
  auto info = discovered(jvm.pid());
  ASSERT_TRUE(info.has_value()) << "JVM " << jvm.pid() << " not discovered";
  EXPECT_EQ(info->namespacePid, jvm.pid());
  EXPECT_EQ(info->uid, ::geteuid());
  EXPECT_EQ(info->user, ourUserName());
  EXPECT_EQ(info->mainClass, kSleeperMainClass);
  EXPECT_EQ(info->javaCommand, std::string(kSleeperMainClass) + " alpha beta");
  EXPECT_TRUE(info->javaVersion.starts_with("17.")) << info->javaVersion;
  EXPECT_EQ(info->featureVersion, 17);
  EXPECT_TRUE(info->vmVersion.starts_with("17.")) << info->vmVersion;
  EXPECT_FALSE(info->vmName.empty());
  EXPECT_EQ(canonical(info->javaHome), canonical(test::kJdkHome));
  EXPECT_TRUE(info->libjvmPath.ends_with("/lib/server/libjvm.so")) << info->libjvmPath;
  EXPECT_NE(info->vmArgs.find("-Dtest.marker=plain"), std::string::npos) << info->vmArgs;
  EXPECT_EQ(info->source, JvmFactsSource::PerfData);
  EXPECT_FALSE(info->initializing);
  EXPECT_FALSE(info->otherPidNamespace);
  EXPECT_FALSE(info->otherMountNamespace);
  EXPECT_EQ(info->container.id, ourContainer().id);  // the child is in our cgroup
  ASSERT_TRUE(info->startTimeMs.has_value());
  EXPECT_GT(*info->startTimeMs, nowMs() - 3600 * 1000);
  EXPECT_LE(*info->startTimeMs, nowMs());
  EXPECT_TRUE(info->attach.possible) << info->attach.reason;

  std::string table = formatJvmTable({*info});
  EXPECT_NE(table.find(kSleeperMainClass), std::string::npos) << table;
  EXPECT_NE(table.find(std::to_string(jvm.pid())), std::string::npos) << table;

  // Stopped, it cannot answer an attach request.
  ASSERT_EQ(::kill(jvm.pid(), SIGSTOP), 0);
  ASSERT_TRUE(discovery_test::waitForState(jvm.pid(), 'T'));
  auto stopped = inspectJvm(jvm.pid());
  ::kill(jvm.pid(), SIGCONT);
  ASSERT_TRUE(stopped.has_value());
  EXPECT_FALSE(stopped->attach.possible);
  EXPECT_EQ(stopped->attach.code, "stopped");
}

TEST(DiscoveryJvm, RealPerfDataFileParsesAndSurvivesTruncation) {
  ChildProcess jvm(sleeperCommand(test::kJdkHome, {}), childOptions());
  ASSERT_TRUE(jvm.awaitLine("ready", kReadyTimeout));
  UniqueFd dir = proc::openProcessDir("/proc", jvm.pid());
  ASSERT_TRUE(dir);
  JvmMappings mappings;
  ASSERT_EQ(readJvmMappings(dir.get(), jvm.pid(), mappings), 0);
  ASSERT_TRUE(mappings.hasPerfData());
  proc::FileData file = readJvmPerfData(dir.get(), mappings);
  ASSERT_TRUE(file.ok()) << std::strerror(file.error);
  std::span bytes(reinterpret_cast<const uint8_t*>(file.bytes.data()), file.bytes.size());
  auto parsed = parsePerfData(bytes);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_TRUE(parsed->accessible);
  EXPECT_TRUE(parsed->complete);
  EXPECT_GT(parsed->longs.size() + parsed->strings.size(), 100u);
  ASSERT_NE(parsed->string(perf_counter::kJavaCommand), nullptr);
  EXPECT_EQ(*parsed->string(perf_counter::kJavaCommand), kSleeperMainClass);
  ASSERT_NE(parsed->string(perf_counter::kJvmCapabilities), nullptr);
  EXPECT_EQ(parsed->string(perf_counter::kJvmCapabilities)->front(), '1');
  EXPECT_TRUE(parsed->number(perf_counter::kCreateVmBeginTime).has_value());

  for (size_t size = 0; size < bytes.size(); size += 7) {
    auto prefix = parsePerfData(bytes.first(size));
    if (prefix && prefix->complete) {
      // Only a prefix that still holds every byte the JVM reports as used can be complete.
      EXPECT_EQ(prefix->strings.size() + prefix->longs.size(), parsed->strings.size() + parsed->longs.size());
    }
  }
}

TEST(DiscoveryJvm, JvmOfAnotherUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to start a JVM as another user";
  auto user = testUser();
  if (!user) GTEST_SKIP() << "could not create the test user " << kTestUser << " (useradd failed)";
  std::vector<std::string> command{"setpriv", "--reuid=" + std::to_string(user->pw_uid),
                                   "--regid=" + std::to_string(user->pw_gid), "--clear-groups", "--"};
  for (std::string& part : sleeperCommand(test::kJdkHome, {})) command.push_back(std::move(part));
  jfrbpf::test::makeJavaPathsReadable(command);
  ChildProcess jvm(command, childOptions());
  ASSERT_TRUE(jvm.awaitLine("ready", kReadyTimeout))
      << "the JVM as " << kTestUser << " did not start (is the build dir readable?)";
  auto info = discovered(jvm.pid());
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->namespacePid, jvm.pid());
  EXPECT_EQ(info->uid, user->pw_uid);
  EXPECT_EQ(info->user, kTestUser);
  EXPECT_EQ(info->mainClass, kSleeperMainClass);
  EXPECT_EQ(info->featureVersion, 17);
  EXPECT_EQ(info->source, JvmFactsSource::PerfData);
  EXPECT_TRUE(info->attach.possible) << info->attach.reason;
}

TEST(DiscoveryJvm, JvmInItsOwnPidAndMountNamespace) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root for unshare --pid --mount";
  // The JVM is pid 1 of a new pid namespace and its /tmp (where hsperfdata goes) is a private tmpfs.
  std::vector<std::string> command{"unshare", "--pid", "--mount", "--fork", "--mount-proc", "--kill-child", "--",
                                   "/bin/sh", "-c", jfrbpf::test::privateTmpMounts() + "exec \"$@\"", "sh"};
  for (std::string& part : sleeperCommand(test::kJdkHome, {})) command.push_back(std::move(part));
  ChildProcess wrapper(command, childOptions());
  ASSERT_TRUE(wrapper.awaitLine("ready", kReadyTimeout));
  auto children = discovery_test::childrenOf(wrapper.pid());
  ASSERT_EQ(children.size(), 1u);
  const pid_t hostPid = children.front();

  auto info = discovered(hostPid);
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->namespacePid, 1);
  EXPECT_TRUE(info->otherPidNamespace);
  EXPECT_TRUE(info->otherMountNamespace);
  EXPECT_EQ(info->source, JvmFactsSource::PerfData);
  EXPECT_EQ(info->mainClass, kSleeperMainClass);
  EXPECT_EQ(info->featureVersion, 17);
  EXPECT_TRUE(info->attach.possible) << info->attach.reason;

  // Its hsperfdata exists only inside its own /tmp.
  const std::string inside = "/proc/" + std::to_string(hostPid) + "/root/tmp/hsperfdata_root/1";
  struct stat insideStat {}, hostStat {};
  ASSERT_EQ(::stat(inside.c_str(), &insideStat), 0);
  if (::stat("/tmp/hsperfdata_root/1", &hostStat) == 0) {
    EXPECT_FALSE(insideStat.st_dev == hostStat.st_dev && insideStat.st_ino == hostStat.st_ino);
  }

  // The path fallback (used without CAP_SYS_ADMIN, when map_files cannot be opened) reads the same file.
  UniqueFd dir = proc::openProcessDir("/proc", hostPid);
  ASSERT_TRUE(dir);
  JvmMappings mappings;
  ASSERT_EQ(readJvmMappings(dir.get(), 1, mappings), 0);
  ASSERT_TRUE(mappings.hasPerfData());
  EXPECT_EQ(mappings.perfData.path, "/tmp/hsperfdata_root/1");
  JvmMappings pathOnly = mappings;
  pathOnly.perfData.start = 0x1000;  // no such mapping: map_files fails
  pathOnly.perfData.end = 0x1000 + (mappings.perfData.end - mappings.perfData.start);
  proc::FileData viaPath = readJvmPerfData(dir.get(), pathOnly);
  ASSERT_TRUE(viaPath.ok()) << std::strerror(viaPath.error);
  std::span bytes(reinterpret_cast<const uint8_t*>(viaPath.bytes.data()), viaPath.bytes.size());
  auto counters = parsePerfData(bytes);
  ASSERT_TRUE(counters.has_value());
  ASSERT_NE(counters->string(perf_counter::kJavaCommand), nullptr);
  EXPECT_EQ(*counters->string(perf_counter::kJavaCommand), kSleeperMainClass);

  // Namespace helpers.
  EXPECT_EQ(proc::namespacePidOf(hostPid), 1);
  EXPECT_EQ(proc::sharesOurNamespace(hostPid, proc::NamespaceKind::Pid), false);
  EXPECT_EQ(proc::sharesOurNamespace(hostPid, proc::NamespaceKind::Mount), false);
  EXPECT_EQ(proc::sharesOurNamespace(hostPid, proc::NamespaceKind::Network), true);
  EXPECT_EQ(proc::hostPidOf(1, hostPid), hostPid);
  EXPECT_EQ(proc::hostTidOf(hostPid, 1), hostPid);
  auto threads = proc::threadIdsOf(hostPid);
  EXPECT_GT(threads.size(), 5u);
  bool sawMain = false;
  for (const proc::ThreadIds& thread : threads) {
    if (thread.tid == hostPid) {
      sawMain = true;
      EXPECT_EQ(thread.nsTid, 1);
    }
    EXPECT_EQ(proc::hostTidOf(hostPid, thread.nsTid), thread.tid);
    EXPECT_EQ(proc::namespaceTidOf(hostPid, thread.tid), thread.nsTid);
  }
  EXPECT_TRUE(sawMain);
  EXPECT_EQ(proc::hostPidOf(12345678, hostPid), std::nullopt);

  // unshare ignores SIGTERM while it waits; the JVM, pid 1 of its namespace, exits on it and unshare follows.
  ASSERT_EQ(::kill(hostPid, SIGTERM), 0);
  EXPECT_TRUE(wrapper.wait(std::chrono::seconds(30)).has_value());
}

TEST(DiscoveryJvm, NamespaceHelpersForOurOwnProcess) {
  EXPECT_EQ(proc::namespacePidOf(::getpid()), ::getpid());
  EXPECT_EQ(proc::namespaceTidOf(::getpid(), ::getpid()), ::getpid());
  EXPECT_EQ(proc::sharesOurNamespace(::getpid(), proc::NamespaceKind::Pid), true);
  EXPECT_EQ(proc::sharesOurNamespace(::getpid(), proc::NamespaceKind::Mount), true);
  EXPECT_EQ(proc::hostPidOf(::getpid(), ::getpid()), ::getpid());
  EXPECT_EQ(proc::hostTidOf(::getpid(), ::getpid()), ::getpid());
  EXPECT_EQ(proc::namespacePidOf(0x7ffffff0), std::nullopt);
  EXPECT_EQ(proc::sharesOurNamespace(0x7ffffff0, proc::NamespaceKind::Pid), std::nullopt);
  EXPECT_TRUE(proc::threadIdsOf(0x7ffffff0).empty());
}

TEST(DiscoveryJvm, DisableAttachMechanism) {
  ChildProcess jvm(sleeperCommand(test::kJdkHome, {"-XX:+DisableAttachMechanism"}), childOptions());
  ASSERT_TRUE(jvm.awaitLine("ready", kReadyTimeout));
  auto info = discovered(jvm.pid());
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->mainClass, kSleeperMainClass);
  EXPECT_FALSE(info->attach.possible);
  EXPECT_EQ(info->attach.code, "disabled");
  EXPECT_NE(info->attach.reason.find("DisableAttachMechanism"), std::string::npos);
}

TEST(DiscoveryJvm, WithoutPerfDataFallsBackToTheCommandLine) {
  ChildProcess jvm(sleeperCommand(test::kJdkHome, {"-XX:-UsePerfData"}, {"gamma"}), childOptions());
  ASSERT_TRUE(jvm.awaitLine("ready", kReadyTimeout));
  auto info = discovered(jvm.pid());
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->source, JvmFactsSource::CommandLine);
  EXPECT_EQ(info->mainClass, kSleeperMainClass);
  EXPECT_EQ(info->javaCommand, std::string(kSleeperMainClass) + " gamma");
  EXPECT_TRUE(info->javaVersion.starts_with("17.")) << info->javaVersion;  // from the JDK's release file
  EXPECT_EQ(canonical(info->javaHome), canonical(test::kJdkHome));
  EXPECT_NE(info->vmArgs.find("-XX:-UsePerfData"), std::string::npos) << info->vmArgs;
  EXPECT_EQ(info->vmArgs.find("-cp"), std::string::npos) << info->vmArgs;
  EXPECT_TRUE(info->vmVersion.empty());
  EXPECT_TRUE(info->startTimeMs.has_value());
  EXPECT_TRUE(info->attach.possible) << info->attach.reason;
}

TEST(DiscoveryJvm, WithoutPerfDataOptionsFromTheEnvironmentCount) {
  std::vector<std::string> command{"env", "JAVA_TOOL_OPTIONS=-XX:+DisableAttachMechanism"};
  for (std::string& part : sleeperCommand(test::kJdkHome, {"-XX:-UsePerfData"})) command.push_back(std::move(part));
  ChildProcess jvm(command, childOptions());
  ASSERT_TRUE(jvm.awaitLine("ready", kReadyTimeout));
  auto info = discovered(jvm.pid());
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->source, JvmFactsSource::CommandLine);
  EXPECT_NE(info->vmArgs.find("-XX:+DisableAttachMechanism"), std::string::npos) << info->vmArgs;
  EXPECT_EQ(info->attach.code, "disabled");
}

TEST(DiscoveryJvm, Jdk25WithoutDynamicAgentLoading) {
  const std::string jdk25 = test::kJdk25Home;
  if (jdk25.empty() || ::access(discovery_test::javaIn(jdk25).c_str(), X_OK) != 0) GTEST_SKIP() << "no JDK 25 installed";
  ChildProcess jvm(sleeperCommand(jdk25, {"-XX:-EnableDynamicAgentLoading"}), childOptions());
  ASSERT_TRUE(jvm.awaitLine("ready", kReadyTimeout));
  auto info = discovered(jvm.pid());
  ASSERT_TRUE(info.has_value());
  EXPECT_TRUE(info->javaVersion.starts_with("25")) << info->javaVersion;
  EXPECT_EQ(info->featureVersion, 25);
  EXPECT_EQ(info->mainClass, kSleeperMainClass);
  EXPECT_EQ(canonical(info->javaHome), canonical(jdk25));
  EXPECT_FALSE(info->attach.possible);
  EXPECT_EQ(info->attach.code, "no-agents");
}

TEST(DiscoveryJvm, Jdk25Plain) {
  const std::string jdk25 = test::kJdk25Home;
  if (jdk25.empty() || ::access(discovery_test::javaIn(jdk25).c_str(), X_OK) != 0) GTEST_SKIP() << "no JDK 25 installed";
  ChildProcess jvm(sleeperCommand(jdk25, {}), childOptions());
  ASSERT_TRUE(jvm.awaitLine("ready", kReadyTimeout));
  auto info = discovered(jvm.pid());
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->featureVersion, 25);
  EXPECT_EQ(info->source, JvmFactsSource::PerfData);
  EXPECT_TRUE(info->attach.possible) << info->attach.reason;
}

TEST(DiscoveryJvm, NonJvmProcessesAreNotListed) {
  // A process that merely looks like java: named "java", not mapping libjvm.so.
  char directory[] = "/tmp/jfrbpf-discovery-XXXXXX";
  ASSERT_NE(::mkdtemp(directory), nullptr);
  const std::string fakeJava = std::string(directory) + "/java";
  std::filesystem::copy_file("/bin/sleep", fakeJava);
  {
    ChildProcess impostor({fakeJava, "600"}, childOptions());
    ChildProcess sleeper({"sleep", "600"}, childOptions());
    ASSERT_TRUE(discovery_test::waitForState(impostor.pid(), 'S'));
    ASSERT_TRUE(discovery_test::waitForState(sleeper.pid(), 'S'));
    DiscoveryResult result = discoverJvms();
    for (const JvmInfo& jvm : result.jvms) {
      EXPECT_NE(jvm.pid, impostor.pid());
      EXPECT_NE(jvm.pid, sleeper.pid());
    }
    EXPECT_FALSE(inspectJvm(impostor.pid()).has_value());
    EXPECT_FALSE(isHotSpotJvm(impostor.pid()));
    EXPECT_FALSE(isHotSpotJvm(sleeper.pid()));
    EXPECT_FALSE(inspectJvm(::getpid()).has_value());
  }
  std::filesystem::remove_all(directory);
  EXPECT_FALSE(inspectJvm(0x7ffffff0).has_value());
}

}  // namespace
}  // namespace jfrbpf::discovery
