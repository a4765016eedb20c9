// Parsers for /proc text (status, stat, maps), java command lines, JDK release files, and the attach verdict.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "userspace/discovery/attach_verdict.h"
#include "userspace/discovery/java_command_line.h"
#include "userspace/discovery/java_release.h"
#include "userspace/discovery/jvm_mappings.h"
#include "userspace/discovery/proc_files.h"
#include "userspace/discovery/proc_status.h"
#include "userspace/discovery/text_fields.h"

namespace jfrbpf::discovery {
namespace {

using namespace std::string_literals;

TEST(DiscoveryProcStatus, ReadsIdentityNamespacesAndSignals) {
  const char* text =
      "Name:\tjava\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t4242\nNgid:\t0\nPid:\t4243\nPPid:\t1\n"
      "Uid:\t1000\t1001\t1001\t1001\nGid:\t2000\t2001\t2001\t2001\nNStgid:\t4242\t17\t1\nNSpid:\t4243\t18\t2\n"
      "SigCgt:\t0000000101005ccd\n";
  auto status = parseProcStatus(text);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->state, 'S');
  EXPECT_EQ(status->tgid, 4242);
  EXPECT_EQ(status->effectiveUid, 1001u);
  EXPECT_EQ(status->effectiveGid, 2001u);
  EXPECT_EQ(status->nsTgid, (std::vector<pid_t>{4242, 17, 1}));
  EXPECT_EQ(status->innermostTgid(), 1);
  EXPECT_EQ(status->innermostPid(), 2);
  EXPECT_TRUE(status->catches(3));   // SIGQUIT
  EXPECT_FALSE(status->catches(2));  // SIGINT
  EXPECT_FALSE(status->catches(0));
  EXPECT_FALSE(status->catches(65));
}

TEST(DiscoveryProcStatus, ToleratesOddAndMissingFields) {
  EXPECT_FALSE(parseProcStatus("").has_value());
  EXPECT_FALSE(parseProcStatus("Name:\tx\nUid:\tgarbage\n").has_value());
  EXPECT_FALSE(parseProcStatus("Uid:\t5\n").has_value());
  // A name containing what looks like other fields is only the Name line.
  auto status = parseProcStatus("Name:\tUid:\t7\t7\nUid:\t0\t0\t0\t0\nNStgid:\t12\tjunk\n");
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->effectiveUid, 0u);
  EXPECT_TRUE(status->nsTgid.empty());
  EXPECT_EQ(status->innermostTgid(), 0);
}

TEST(DiscoveryProcStat, ReadsFieldsAfterACommWithSpacesAndParentheses) {
  std::string text = "4242 (my (odd) java) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 6 0 0 20 0 30 0 123456 0 0 0 "
                     "94000000 95000000 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 96000000 97000000 98000000 140000000 "
                     "140000100 140000200 140000300 0\n";
  auto stat = parseProcStat(text);
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->comm, "my (odd) java");
  EXPECT_EQ(stat->state, 'S');
  EXPECT_EQ(stat->startTicks, 123456u);
  EXPECT_EQ(stat->startCode, 94000000u);
  EXPECT_EQ(stat->argStart, 140000000u);
  EXPECT_FALSE(stat->kernelThread());
  auto kernel = parseProcStat("2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0 0");
  ASSERT_TRUE(kernel.has_value());
  EXPECT_TRUE(kernel->kernelThread());
  EXPECT_EQ(kernel->argStart, 0u);
  EXPECT_FALSE(parseProcStat("4242 java S 1").has_value());
  EXPECT_FALSE(parseProcStat("4242 (java) S 1 2 3").has_value());
  EXPECT_FALSE(parseProcStat(")(").has_value());
}

TEST(DiscoveryMaps, FindsLibjvmAndTheJvmsOwnPerfDataFile) {
  JvmMappings found;
  for (const char* line : {
           "55d0c0000000-55d0c0001000 r--p 00000000 fe:00 123 /usr/lib/jvm/java-17-openjdk-amd64/bin/java",
           "7f0000000000-7f0000001000 rw-s 00000000 fe:00 10 /tmp/hsperfdata_app/99",  // another pid's file
           "7f1006000000-7f1006300000 r--p 00000000 fe:00 318 /opt/jdk/lib/server/libjvm.so",
           "7f10067c9000-7f10067d1000 rw-s 00000000 fe:00 1096 /tmp/hsperfdata_app/17 (deleted)",
           "7f10067d1000-7f10067d2000 r--p 00000000 fe:00 1 /other/lib/libjvm.so",
           "garbage",
           "",
       }) {
    scanMapsLine(line, 17, found);
  }
  EXPECT_TRUE(found.hotSpot());
  EXPECT_EQ(found.libjvmPath, "/opt/jdk/lib/server/libjvm.so");
  ASSERT_TRUE(found.hasPerfData());
  EXPECT_EQ(found.perfDataPath, "/tmp/hsperfdata_app/17");
  EXPECT_EQ(found.perfDataStart, 0x7f10067c9000u);
  EXPECT_EQ(found.perfDataEnd, 0x7f10067d1000u);
}

TEST(DiscoveryMaps, PathsWithSpacesAndOpenJ9) {
  JvmMappings found;
  scanMapsLine("7f00-7f10 r-xp 00000000 fe:00 5     /opt/my jdk/lib/server/libjvm.so", 1, found);
  EXPECT_EQ(found.libjvmPath, "/opt/my jdk/lib/server/libjvm.so");
  scanMapsLine("7f20-7f30 r-xp 00000000 fe:00 6     /opt/my jdk/lib/default/libj9vm29.so", 1, found);
  EXPECT_TRUE(found.openJ9);
  EXPECT_FALSE(found.hotSpot());

  JvmMappings notJvm;
  scanMapsLine("7f00-7f10 r-xp 00000000 fe:00 5 /usr/lib/libjvm.so.bak", 1, notJvm);
  scanMapsLine("7f00-7f10 r-xp 00000000 00:00 0 [heap]", 1, notJvm);
  scanMapsLine("7f00-7f10 rw-s 00000000 fe:00 7 /tmp/hsperfdata/1", 1, notJvm);         // no user suffix
  scanMapsLine("zz-7f10 rw-s 00000000 fe:00 7 /tmp/hsperfdata_root/1", 1, notJvm);      // bad range
  scanMapsLine("7f10-7f00 rw-s 00000000 fe:00 7 /tmp/hsperfdata_root/1", 1, notJvm);    // empty range
  EXPECT_FALSE(notJvm.hotSpot());
  EXPECT_FALSE(notJvm.hasPerfData());
}

TEST(DiscoveryJavaCommandLine, MainClassJarAndModule) {
  auto plain = parseJavaCommandLine("java\0-Xmx1g\0-cp\0/app/lib/*\0-Dx=y z\0com.example.Main\0--port\0-v"s);
  EXPECT_EQ(plain.mainClass, "com.example.Main");
  EXPECT_EQ(plain.javaCommand, "com.example.Main --port -v");
  EXPECT_EQ(plain.vmOptions, (std::vector<std::string>{"-Xmx1g", "-Dx=y z"}));

  auto jar = parseJavaCommandLine("/usr/bin/java\0-XX:+UseG1GC\0-jar\0app.jar\0serve\0"s);
  EXPECT_EQ(jar.mainClass, "app.jar");
  EXPECT_EQ(jar.javaCommand, "app.jar serve");
  EXPECT_EQ(jar.vmOptions, (std::vector<std::string>{"-XX:+UseG1GC"}));

  auto module = parseJavaCommandLine("java\0--module-path\0mods\0-m\0app/com.example.Main\0"s);
  EXPECT_EQ(module.mainClass, "app/com.example.Main");
  auto moduleEquals = parseJavaCommandLine("java\0--module=app/com.example.Main\0arg\0"s);
  EXPECT_EQ(moduleEquals.mainClass, "app/com.example.Main");
  EXPECT_EQ(moduleEquals.javaCommand, "app/com.example.Main arg");

  auto argFile = parseJavaCommandLine("java\0@opts.txt\0Main\0"s);
  EXPECT_EQ(argFile.mainClass, "Main");
}

TEST(DiscoveryJavaCommandLine, NoMainClass) {
  EXPECT_EQ(parseJavaCommandLine("").mainClass, "");
  EXPECT_EQ(parseJavaCommandLine("java\0-version\0"s).mainClass, "");
  EXPECT_EQ(parseJavaCommandLine("java\0-jar\0"s).mainClass, "");
  EXPECT_EQ(parseJavaCommandLine("java\0-cp\0"s).mainClass, "");
}

TEST(DiscoveryJavaCommandLine, BooleanFlagLastOneWins) {
  std::vector<std::string_view> options{"-XX:+DisableAttachMechanism", "-Xmx1g", "-XX:-DisableAttachMechanism"};
  EXPECT_EQ(booleanVmFlag(options, "DisableAttachMechanism"), false);
  options.push_back("-XX:+DisableAttachMechanism");
  EXPECT_EQ(booleanVmFlag(options, "DisableAttachMechanism"), true);
  EXPECT_EQ(booleanVmFlag(options, "EnableDynamicAgentLoading"), std::nullopt);
  EXPECT_EQ(booleanVmFlag({"-XX:+DisableAttachMechanismX", "-XX:DisableAttachMechanism"}, "DisableAttachMechanism"),
            std::nullopt);
  EXPECT_EQ(mainClassOf("com.example.Main a b"), "com.example.Main");
  EXPECT_EQ(mainClassOf(""), "");
}

TEST(DiscoveryJavaRelease, ReadsJavaVersion) {
  EXPECT_EQ(javaVersionFromRelease("IMPLEMENTOR=\"Eclipse Adoptium\"\nJAVA_VERSION=\"25.0.3\"\n"), "25.0.3");
  EXPECT_EQ(javaVersionFromRelease("JAVA_VERSION=\"1.8.0_412\""), "1.8.0_412");
  EXPECT_EQ(javaVersionFromRelease("JAVA_VERSION_DATE=\"2026-04-21\"\n"), "");
  EXPECT_EQ(javaVersionFromRelease("JAVA_VERSION=17\n"), "17");
  EXPECT_EQ(javaVersionFromRelease(""), "");
}

TEST(DiscoveryJavaRelease, FeatureVersions) {
  EXPECT_EQ(javaFeatureVersion("1.8.0_412"), 8);
  EXPECT_EQ(javaFeatureVersion("17.0.15"), 17);
  EXPECT_EQ(javaFeatureVersion("25"), 25);
  EXPECT_EQ(javaFeatureVersion("26-ea"), 26);
  EXPECT_EQ(javaFeatureVersion(""), std::nullopt);
  EXPECT_EQ(javaFeatureVersion("abc"), std::nullopt);
  EXPECT_EQ(javaFeatureVersion("0.1"), std::nullopt);
  EXPECT_EQ(javaFeatureVersion("99999999999999999999"), std::nullopt);
}

TEST(DiscoveryAttachVerdict, PossibleByDefault) {
  AttachVerdict verdict = judgeAttach(AttachFacts{});
  EXPECT_TRUE(verdict.possible);
  EXPECT_EQ(verdict.code, "");
  EXPECT_EQ(verdict.reason, "");
}

TEST(DiscoveryAttachVerdict, DisableAttachMechanismFromCapabilitiesOrOptions) {
  AttachFacts facts;
  facts.capabilityAttach = false;
  AttachVerdict verdict = judgeAttach(facts);
  EXPECT_FALSE(verdict.possible);
  EXPECT_EQ(verdict.code, "disabled");
  EXPECT_NE(verdict.reason.find("-XX:+DisableAttachMechanism"), std::string::npos);

  AttachFacts fromOptions;
  fromOptions.vmOptions = {"-XX:+DisableAttachMechanism"};
  EXPECT_EQ(judgeAttach(fromOptions).code, "disabled");
  fromOptions.vmOptions.push_back("-XX:-DisableAttachMechanism");
  EXPECT_TRUE(judgeAttach(fromOptions).possible);
}

TEST(DiscoveryAttachVerdict, DynamicAgentLoadingOffMattersFromJdk21) {
  AttachFacts facts;
  facts.vmOptions = {"-XX:-EnableDynamicAgentLoading"};
  facts.featureVersion = 17;
  EXPECT_TRUE(judgeAttach(facts).possible);
  facts.featureVersion = 21;
  EXPECT_EQ(judgeAttach(facts).code, "no-agents");
  facts.featureVersion = 25;
  EXPECT_EQ(judgeAttach(facts).code, "no-agents");
  facts.featureVersion.reset();
  EXPECT_EQ(judgeAttach(facts).code, "no-agents");
  facts.vmOptions.push_back("-XX:+EnableDynamicAgentLoading");
  EXPECT_TRUE(judgeAttach(facts).possible);
}

TEST(DiscoveryAttachVerdict, StoppedAndSignalHandling) {
  AttachFacts stopped;
  stopped.state = 'T';
  EXPECT_EQ(judgeAttach(stopped).code, "stopped");
  stopped.state = 't';
  EXPECT_EQ(judgeAttach(stopped).code, "stopped");

  AttachFacts noHandler;
  noHandler.catchesSigquit = false;
  EXPECT_EQ(judgeAttach(noHandler).code, "no-sigquit");
  noHandler.listenerRunning = true;  // -Xrs starts the listener at startup: no signal needed
  EXPECT_TRUE(judgeAttach(noHandler).possible);
}

class DiscoveryLineReader : public ::testing::Test {
 protected:
  void SetUp() override {
    char path[] = "/tmp/jfrbpf-discovery-lines-XXXXXX";
    int fd = ::mkstemp(path);
    ASSERT_GE(fd, 0);
    ::close(fd);
    path_ = path;
  }
  void TearDown() override { ::unlink(path_.c_str()); }

  std::vector<std::string> lines(const std::string& content, size_t maxLine, size_t stopAfter = SIZE_MAX) {
    std::ofstream(path_, std::ios::binary) << content;
    std::vector<std::string> seen;
    int error = forEachLineOfFile(AT_FDCWD, path_.c_str(), maxLine, [&](std::string_view line) {
      seen.emplace_back(line);
      return seen.size() < stopAfter;
    });
    EXPECT_EQ(error, 0);
    return seen;
  }

  std::string path_;
};

TEST_F(DiscoveryLineReader, SkipsOverlongLinesWithBoundedMemory) {
  const std::string huge(300 * 1024, 'x');  // longer than the reader's buffer
  EXPECT_EQ(lines("short\n" + huge + "\nafter\nlast", 100), (std::vector<std::string>{"short", "after", "last"}));
  EXPECT_EQ(lines("a\n" + huge, 100), (std::vector<std::string>{"a"}));
  EXPECT_EQ(lines(huge + "\n" + huge + "\nz\n", 100), (std::vector<std::string>{"z"}));
  EXPECT_EQ(lines("exactly10!\nelevenchars\n", 10), (std::vector<std::string>{"exactly10!"}));
  EXPECT_EQ(lines("", 100), (std::vector<std::string>{}));
  EXPECT_EQ(lines("\n\n", 100), (std::vector<std::string>{"", ""}));
}

TEST_F(DiscoveryLineReader, StopsWhenAsked) {
  EXPECT_EQ(lines("1\n2\n3\n", 100, 2), (std::vector<std::string>{"1", "2"}));
}

TEST_F(DiscoveryLineReader, ReportsOpenErrors) {
  EXPECT_EQ(forEachLineOfFile(AT_FDCWD, "/nonexistent/jfrbpf", 100, [](std::string_view) { return true; }), ENOENT);
}

TEST(DiscoveryTextFields, NumbersAndFields) {
  EXPECT_EQ(parseNumber<int>("42"), 42);
  EXPECT_EQ(parseNumber<int>("42x"), std::nullopt);
  EXPECT_EQ(parseNumber<int>(""), std::nullopt);
  EXPECT_EQ(parseNumber<unsigned>("-1"), std::nullopt);
  EXPECT_EQ(parseNumber<uint64_t>("7f10067c9000", 16), 0x7f10067c9000u);
  EXPECT_EQ(splitFields("  a \t b  c ", 2), (std::vector<std::string_view>{"a", "b"}));
  EXPECT_TRUE(isLowerHex("09af"));
  EXPECT_FALSE(isLowerHex("09aF"));
  EXPECT_FALSE(isLowerHex(""));
}

}  // namespace
}  // namespace jfrbpf::discovery
