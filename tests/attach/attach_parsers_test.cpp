// Parsers of target-provided text: what a JVM's file mappings and options mean, and the attach protocol's
// requests and replies (replies captured from JDK 17 and JDK 25, plus JDK 8's format). /proc's own formats
// are tested in tests/proc.
#include <gtest/gtest.h>

#include <string>

#include "userspace/attach/attach_error.h"
#include "userspace/attach/jvm_facts.h"
#include "userspace/attach/jvm_options.h"
#include "userspace/attach/mapped_files.h"
#include "userspace/attach/protocol.h"
#include "userspace/proc/nul_separated.h"

namespace jfrbpf::attach {
namespace {

using namespace std::string_literals;

TEST(AttachMappedFiles, KeepsFilesAndFindsTheJvmsOwn) {
  const std::string maps =
      "7ff84ac00000-7ff84ae51000 r--p 00000000 fe:00 318057                     /usr/lib/jvm/x/lib/server/libjvm.so\n"
      "7ff84bf9c000-7ff84bfa4000 rw-s 00000000 fe:00 10960909                   /tmp/hsperfdata_root/7613\n"
      "7ff84c000000-7ff84c001000 rw-p 00000000 00:00 0 \n"
      "7ff84c001000-7ff84c002000 r-xp 00000000 00:1f 77                         /tmp/jfrbpf-ab/libjfrbpf-agent.so "
      "(deleted)\n"
      "7ff84c002000-7ff84c003000 r--p 00000000 00:1f 78                         /opt/my dir/lib x.so\n"
      "7ffd1000-7ffd2000 rw-p 00000000 00:00 0                          [stack]\n"
      "garbage line\n"
      "5-3 r--p 00000000 00:00 1 /backwards\n";
  auto files = fileMappings(maps);
  ASSERT_EQ(files.size(), 4u);
  EXPECT_EQ(files[0].start, 0x7ff84ac00000u);
  EXPECT_EQ(files[0].end, 0x7ff84ae51000u);
  EXPECT_EQ(files[2].path, "/tmp/jfrbpf-ab/libjfrbpf-agent.so");
  EXPECT_TRUE(files[2].deleted);
  EXPECT_EQ(files[3].path, "/opt/my dir/lib x.so");
  EXPECT_FALSE(files[3].deleted);
  ASSERT_TRUE(findByBaseName(files, "libjvm.so"));
  EXPECT_EQ(findByBaseNamePrefix(files, kAgentFileNamePrefix), &files[2]);
  EXPECT_EQ(findPerfDataFile(files, 7613), &files[1]);
  EXPECT_EQ(findPerfDataFile(files, 761), nullptr);
  EXPECT_EQ(findByBaseName(files, "libz.so"), nullptr);
}

TEST(AttachJvmOptions, LauncherOptionsStopAtTheProgram) {
  const std::string cmdline =
      "java\0-Xmx1g\0-cp\0-XX:+NotAFlag\0-XX:+DisableAttachMechanism\0Main\0-XX:-DisableAttachMechanism\0"s;
  auto options = launcherJvmOptions(cmdline);
  ASSERT_EQ(options.size(), 3u);  // -Xmx1g, -cp (its value skipped), -XX:+DisableAttachMechanism
  EXPECT_EQ(options[1], "-cp");
  EXPECT_EQ(lastBooleanFlag(options, "DisableAttachMechanism"), true);
  const std::string jar =
      "/usr/bin/java\0-XX:-EnableDynamicAgentLoading\0-jar\0app.jar\0-XX:+EnableDynamicAgentLoading\0"s;
  EXPECT_EQ(lastBooleanFlag(launcherJvmOptions(jar), "EnableDynamicAgentLoading"), false);
  EXPECT_TRUE(launcherJvmOptions(""s).empty());
}

TEST(AttachJvmOptions, LastSettingWinsAndNamesMatchExactly) {
  std::vector<std::string_view> options = {"-XX:+DisableAttachMechanism", "-XX:+DisableAttachMechanismX",
                                           "-XX:-DisableAttachMechanism", "-XX:DisableAttachMechanism"};
  EXPECT_EQ(lastBooleanFlag(options, "DisableAttachMechanism"), false);
  EXPECT_EQ(lastBooleanFlag(options, "EnableDynamicAgentLoading"), std::nullopt);
  const std::string environ = "PATH=/bin\0JAVA_TOOL_OPTIONS=-Xss1m  -XX:+EnableDynamicAgentLoading\0JAVA=1\0"s;
  auto value = proc::environmentValue(environ, "JAVA_TOOL_OPTIONS");
  ASSERT_TRUE(value);
  EXPECT_EQ(lastBooleanFlag(splitOptions(*value), "EnableDynamicAgentLoading"), true);
  EXPECT_FALSE(proc::environmentValue(environ, "JAVA_HOME"));
  EXPECT_EQ(proc::environmentValue(environ, "JAVA"), "1");
}

TEST(AttachJvmFacts, FeatureVersionsAndTheDynamicAgentWarning) {
  EXPECT_EQ(javaFeatureVersion("1.8"), 8);
  EXPECT_EQ(javaFeatureVersion("1.8.0_402"), 8);
  EXPECT_EQ(javaFeatureVersion("17"), 17);
  EXPECT_EQ(javaFeatureVersion("25.0.3"), 25);
  EXPECT_EQ(javaFeatureVersion("banana"), std::nullopt);
  EXPECT_EQ(javaFeatureVersion(""), std::nullopt);

  JvmFacts facts;
  facts.javaFeatureVersion = 17;
  EXPECT_FALSE(facts.loadingAgentPrintsWarning());
  facts.javaFeatureVersion = 21;
  EXPECT_TRUE(facts.loadingAgentPrintsWarning());
  facts.javaFeatureVersion.reset();
  EXPECT_TRUE(facts.loadingAgentPrintsWarning());  // unknown: assume it may
  facts.javaFeatureVersion = 25;
  facts.dynamicAgentLoadingFlag = true;
  EXPECT_FALSE(facts.loadingAgentPrintsWarning());
  facts.dynamicAgentLoadingFlag.reset();
  facts.loadedAgentPath = "/tmp/jfrbpf-1/libjfrbpf-agent.so";
  EXPECT_FALSE(facts.loadingAgentPrintsWarning());  // HotSpot warns only for a library not loaded before
}

TEST(AttachProtocol, EncodesVersionCommandAndThreeArguments) {
  EXPECT_EQ(encodeRequest("load", {"/tmp/a.so", "true", "x=1"}), "1\0load\0/tmp/a.so\0true\0x=1\0"s);
  EXPECT_EQ(encodeRequest("jcmd", {"VM.version", "", ""}), "1\0jcmd\0VM.version\0\0\0"s);
}

TEST(AttachProtocol, RefusesRequestsHotSpotWouldMisread) {
  auto kindOf = [](auto&& call) {
    try {
      call();
    } catch (const AttachError& e) {
      return e.kind();
    }
    return AttachFailure::NoSuchProcess;
  };
  EXPECT_EQ(kindOf([] { encodeRequest(std::string(17, 'c'), {"", "", ""}); }), AttachFailure::ProtocolError);
  EXPECT_EQ(kindOf([] { encodeRequest("load", {std::string(1025, 'a'), "", ""}); }), AttachFailure::ProtocolError);
  EXPECT_EQ(kindOf([] { encodeRequest("load", {"a\0b"s, "", ""}); }), AttachFailure::ProtocolError);
  EXPECT_NO_THROW(encodeRequest(std::string(16, 'c'), {std::string(1024, 'a'), "", ""}));
}

TEST(AttachProtocol, ParsesStatusLine) {
  auto ok = parseReply("0\nOpenJDK 64-Bit Server VM version 17.0.15\nJDK 17.0.15\n");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 0);
  EXPECT_EQ(ok->text, "OpenJDK 64-Bit Server VM version 17.0.15\nJDK 17.0.15\n");
  auto failed = parseReply("-1\nOperation nosuchop not recognized!");
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->status, -1);
  auto bare = parseReply("101");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->status, 101);
  EXPECT_TRUE(bare->text.empty());
  EXPECT_FALSE(parseReply(""));
  EXPECT_FALSE(parseReply("HTTP/1.1 200 OK\n"));
  EXPECT_FALSE(parseReply("99999999999999999999\n"));
}

TEST(AttachProtocol, InterpretsLoadRepliesOfEveryJdkGeneration) {
  auto outcome = [](std::string_view raw) { return interpretLoadReply(*parseReply(raw)); };
  // JDK 8: the agent's result as a bare number.
  EXPECT_TRUE(outcome("0\n0\n").succeeded());
  EXPECT_EQ(outcome("0\n100\n").agentResult, 100);
  // JDK 9-20 and 21+: "return code: N".
  EXPECT_TRUE(outcome("0\nreturn code: 0\n").succeeded());
  auto failing = outcome("0\nreturn code: 42\n");
  EXPECT_TRUE(failing.agentRan);
  EXPECT_EQ(failing.agentResult, 42);
  EXPECT_FALSE(failing.succeeded());
  // JDK 17: library not found -> status -1 and the reason.
  auto jdk17 =
      outcome("-1\n/x/lib.so was not loaded.\n/x/lib.so: cannot open shared object file: No such file or directory\n");
  EXPECT_FALSE(jdk17.agentRan);
  EXPECT_EQ(jdk17.jvmText,
            "/x/lib.so was not loaded.; /x/lib.so: cannot open shared object file: No such file or directory");
  // JDK 21+: status 0, the reason, no return code.
  auto jdk25 = outcome("0\nAgent_OnAttach is not available in /usr/lib/libz.so.1\n");
  EXPECT_FALSE(jdk25.agentRan);
  EXPECT_FALSE(jdk25.succeeded());
  EXPECT_EQ(jdk25.jvmText, "Agent_OnAttach is not available in /usr/lib/libz.so.1");
  auto refused =
      outcome("0\nDynamic agent loading is not enabled. Use -XX:+EnableDynamicAgentLoading to launch target VM.\n");
  EXPECT_FALSE(refused.succeeded());
  EXPECT_NE(refused.jvmText.find("EnableDynamicAgentLoading"), std::string::npos);
  EXPECT_FALSE(refused.beforeLivePhase) << "a refusal for good";
  // JDK 21+ asked before JVMTI's live phase (a JVM still starting): asking again later succeeds.
  auto early = outcome("0\nDynamic agent loading is only permitted in the live phase\n");
  EXPECT_FALSE(early.succeeded());
  EXPECT_TRUE(early.beforeLivePhase);
  EXPECT_TRUE(outcome("-1\nDynamic agent loading is only permitted in the live phase\n").beforeLivePhase);
  EXPECT_FALSE(jdk25.beforeLivePhase);
  EXPECT_FALSE(outcome("0\n").succeeded());
  EXPECT_FALSE(outcome("0\n\x1b[31mreturn code: x\n").succeeded());
}

}  // namespace
}  // namespace jfrbpf::attach
