// What a JVM's text says about it: its maps lines (libjvm.so, hsperfdata), java command lines, JDK release files,
// and the attach verdict. /proc's own formats are tested in tests/proc.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "userspace/discovery/attach_verdict.h"
#include "userspace/discovery/java_command_line.h"
#include "userspace/discovery/java_release.h"
#include "userspace/discovery/jvm_mappings.h"

namespace jfrbpf::discovery {
namespace {

using namespace std::string_literals;

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
  EXPECT_EQ(found.perfData.path, "/tmp/hsperfdata_app/17");
  EXPECT_EQ(found.perfData.start, 0x7f10067c9000u);
  EXPECT_EQ(found.perfData.end, 0x7f10067d1000u);
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

}  // namespace
}  // namespace jfrbpf::discovery
