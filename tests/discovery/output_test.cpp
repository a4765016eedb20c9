// `jfrbpf list` output: the aligned table, JSON lines, and text from hostile targets made harmless.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "userspace/discovery/display_text.h"
#include "userspace/discovery/jvm_table.h"

namespace jfrbpf::discovery {
namespace {

JvmInfo sampleJvm() {
  JvmInfo jvm;
  jvm.pid = 4242;
  jvm.namespacePid = 1;
  jvm.uid = 1000;
  jvm.user = "app";
  jvm.container.id = "3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899";
  jvm.container.runtime = "containerd";
  jvm.otherPidNamespace = true;
  jvm.otherMountNamespace = true;
  jvm.mainClass = "com.example.Main";
  jvm.javaCommand = "com.example.Main --port 8080";
  jvm.javaVersion = "17.0.15";
  jvm.featureVersion = 17;
  jvm.startTimeMs = 1795300680836;
  jvm.source = JvmFactsSource::PerfData;
  return jvm;
}

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(DiscoveryOutput, TableHasAlignedColumns) {
  JvmInfo second = sampleJvm();
  second.pid = 7;
  second.namespacePid = 7;
  second.user = "root";
  second.container = {};
  second.mainClass = "app.jar";
  second.javaVersion = "25.0.3";
  second.attach = AttachVerdict{false, "disabled", "started with -XX:+DisableAttachMechanism"};
  auto lines = linesOf(formatJvmTable({sampleJvm(), second}));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], " PID  NSPID  USER  CONTAINER     JDK      ATTACH       MAIN");
  EXPECT_EQ(lines[1], "4242      1  app   3f4e5d6c7b8a  17.0.15  yes          com.example.Main");
  EXPECT_EQ(lines[2], "   7      7  root  -             25.0.3   no:disabled  app.jar");
}

TEST(DiscoveryOutput, EmptyTableIsTheHeader) {
  EXPECT_EQ(formatJvmTable({}), "PID  NSPID  USER  CONTAINER  JDK  ATTACH  MAIN\n");
}

TEST(DiscoveryOutput, UnknownsAndStartingJvmsAreMarked) {
  JvmInfo jvm = sampleJvm();
  jvm.mainClass.clear();
  jvm.javaVersion.clear();
  jvm.initializing = true;
  auto lines = linesOf(formatJvmTable({jvm}));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[1].find("  ?  "), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("? (starting)"), std::string::npos) << lines[1];
}

TEST(DiscoveryOutput, LinesAreCutAtTheGivenWidth) {
  JvmInfo jvm = sampleJvm();
  jvm.mainClass = std::string(200, 'x');
  for (const std::string& line : linesOf(formatJvmTable({jvm}, 80))) EXPECT_LE(line.size(), 80u);
  auto uncut = linesOf(formatJvmTable({jvm}, 0));
  EXPECT_GT(uncut[1].size(), 200u);
}

TEST(DiscoveryOutput, HostileTextCannotReachTheTerminal) {
  JvmInfo jvm = sampleJvm();
  jvm.mainClass = "evil\x1b]0;owned\x07\x1b[2J\nfake line\x9b" "31m";
  std::string table = formatJvmTable({jvm});
  EXPECT_EQ(table.find('\x1b'), std::string::npos);
  EXPECT_EQ(table.find('\x07'), std::string::npos);
  EXPECT_EQ(table.find('\x9b'), std::string::npos);
  EXPECT_EQ(linesOf(table).size(), 2u);  // the embedded newline did not add a row
}

TEST(DiscoveryOutput, PrintableTextKeepsValidUtf8Only) {
  EXPECT_EQ(printableText("Größe"), "Größe");
  EXPECT_EQ(printableText("a\tb\x7f" "c"), "a?b?c");
  EXPECT_EQ(printableText("\xc3"), "?");              // truncated sequence
  EXPECT_EQ(printableText("\xc0\xaf"), "??");         // overlong '/'
  EXPECT_EQ(printableText("\xed\xa0\x80"), "???");    // surrogate
  EXPECT_EQ(printableText("\xc2\x9b"), "?");          // C1 control (CSI)
  EXPECT_EQ(displayWidth("Größe"), 5u);
  EXPECT_EQ(truncateToWidth("Größe", 3), "Grö");
  EXPECT_EQ(truncateToWidth("ab", 5), "ab");
}

TEST(DiscoveryOutput, JsonLineCarriesEveryField) {
  JvmInfo jvm = sampleJvm();
  jvm.attach = AttachVerdict{false, "no-agents", "started with -XX:-EnableDynamicAgentLoading"};
  std::string line = formatJvmJsonLine(jvm);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(line.front(), '{');
  EXPECT_EQ(line.back(), '}');
  for (const char* expected : {
           R"("pid":4242)", R"("nspid":1)", R"("uid":1000)", R"("user":"app")",
           R"("container":{"id":"3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899","runtime":"containerd","podUid":""})",
           R"("otherPidNamespace":true)", R"("mainClass":"com.example.Main")",
           R"("javaCommand":"com.example.Main --port 8080")", R"("javaVersion":"17.0.15")",
           R"("featureVersion":17)", R"("startTimeMs":1795300680836)", R"("source":"hsperfdata")",
           R"("attach":{"possible":false,"code":"no-agents","reason":"started with -XX:-EnableDynamicAgentLoading"})"}) {
    EXPECT_NE(line.find(expected), std::string::npos) << expected << "\nin " << line;
  }
  EXPECT_NE(line.find(R"("optedOut":false)"), std::string::npos) << line;
  jvm.optedOut = true;
  EXPECT_NE(formatJvmJsonLine(jvm).find(R"("optedOut":true)"), std::string::npos);
  EXPECT_NE(linesOf(formatJvmTable({jvm}))[1].find("no:no-agents,opted-out"), std::string::npos);
  JvmInfo bare;
  std::string bareLine = formatJvmJsonLine(bare);
  EXPECT_NE(bareLine.find(R"("container":null)"), std::string::npos);
  EXPECT_NE(bareLine.find(R"("featureVersion":null)"), std::string::npos);
  EXPECT_NE(bareLine.find(R"("startTimeMs":null)"), std::string::npos);
  EXPECT_EQ(linesOf(formatJvmJsonLines({jvm, bare})).size(), 2u);
}

TEST(DiscoveryOutput, JsonStringsAreEscaped) {
  EXPECT_EQ(jsonQuoted("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(jsonQuoted("line\nnext\t\x01"), R"("line\nnext\t\u0001")");
  EXPECT_EQ(jsonQuoted("Größe"), "\"Größe\"");
  EXPECT_EQ(jsonQuoted("bad\xff"), R"("bad\ufffd")");
}

}  // namespace
}  // namespace jfrbpf::discovery
