// Unit tests of the pieces every view and converter relies on: frame names, number formats, tables.
#include <gtest/gtest.h>

#include <climits>

#include "base/error.h"
#include "formats/convert/convert.h"
#include "formats/convert/frame_names.h"
#include "formats/convert/sample_collector.h"
#include "formats/convert/utf8.h"
#include "userspace/view/command_options.h"
#include "userspace/view/text_format.h"
#include "userspace/view/text_table.h"

namespace jfrbpf::test {
namespace {

using namespace jfrbpf::convert;
using namespace jfrbpf::view;

TEST(ViewFrameNames, JavaMethodsReadAsTheJdkPrintsThem) {
  EXPECT_EQ(javaMethodName("java/lang/String", "indexOf", "(II)I"), "java.lang.String.indexOf(int, int)");
  EXPECT_EQ(javaMethodName("HotWork", "main", "([Ljava/lang/String;)V"), "HotWork.main(String[])");
  EXPECT_EQ(
      javaMethodName("java/util/HashMap", "putVal", "(ILjava/lang/Object;Ljava/lang/Object;ZZ)Ljava/lang/Object;"),
      "java.util.HashMap.putVal(int, Object, Object, boolean, boolean)");
  EXPECT_EQ(javaMethodName("a/B$C", "m", "([[JLjava/util/Map$Entry;DFSBC)V"),
            "a.B$C.m(long[][], Map$Entry, double, float, short, byte, char)");
  EXPECT_EQ(javaMethodName("X", "<init>", "()V"), "X.<init>()");
}

TEST(ViewFrameNames, MalformedDescriptorsLeaveTheParametersOut) {
  EXPECT_EQ(javaMethodName("X", "m", ""), "X.m");
  EXPECT_EQ(javaMethodName("X", "m", "(Ljava/lang/String"), "X.m");
  EXPECT_EQ(javaMethodName("X", "m", "(Q)V"), "X.m");
  EXPECT_EQ(javaMethodName("X", "m", "(I"), "X.m");
  EXPECT_EQ(javaMethodName("", "", "()V"), "[unknown]()");
  std::string params;
  EXPECT_FALSE(javaParameterList(std::string(300, '[') + "I)V", params));
}

// Allocated classes (jdk.ObjectAllocationSample's objectClass) by their internal names, as `jfr print` shows them.
TEST(ViewFrameNames, ClassesReadAsJavaSpellsThem) {
  EXPECT_EQ(javaTypeName("[B"), "byte[]");
  EXPECT_EQ(javaTypeName("[[I"), "int[][]");
  EXPECT_EQ(javaTypeName("[Ljava/lang/String;"), "java.lang.String[]");
  EXPECT_EQ(javaTypeName("[[Ljava/util/Map$Entry;"), "java.util.Map$Entry[][]");
  EXPECT_EQ(javaTypeName("com/foo/Bar"), "com.foo.Bar");
  EXPECT_EQ(javaTypeName("Bar"), "Bar");
  // Malformed array names are shown as they are (with dots), not guessed at.
  EXPECT_EQ(javaTypeName("[Q"), "[Q");
  EXPECT_EQ(javaTypeName("[Ljava/lang/String"), "[Ljava.lang.String");
  EXPECT_EQ(javaTypeName("[II"), "[II");
  EXPECT_EQ(javaTypeName("["), "[");
  EXPECT_EQ(frameKindTag(FrameKind::kAllocatedClass), "[a]");
  EXPECT_EQ(frameKindName(FrameKind::kAllocatedClass), "Allocated class");
}

TEST(ViewFrameNames, NativeCodeIsTellsLibrariesFromJavaNativeMethods) {
  EXPECT_TRUE(isNativeCode("Native", "libc.so.6", "()V"));
  EXPECT_TRUE(isNativeCode("Native", "kernel", "()V"));
  EXPECT_TRUE(isNativeCode("Kernel", "", ""));
  EXPECT_FALSE(isNativeCode("Native", "java/lang/Thread", "(J)V"));  // a Java `native` method
  EXPECT_FALSE(isNativeCode("Native", "java/lang/Object", "()V"));
  EXPECT_FALSE(isNativeCode("JIT compiled", "libc.so.6", "()V"));
  EXPECT_EQ(nativeFrameName("libc.so.6", "memcpy"), "memcpy (libc.so.6)");
  EXPECT_EQ(nativeFrameName("", "memcpy"), "memcpy");
  EXPECT_EQ(nativeFrameName("kernel", ""), "[unknown] (kernel)");
}

TEST(ViewFrameNames, FrameTypesOfJdkAndAsyncProfiler) {
  EXPECT_EQ(frameKindFromType("JIT compiled"), FrameKind::kJitCompiled);
  EXPECT_EQ(frameKindFromType("C1 compiled"), FrameKind::kJitCompiled);
  EXPECT_EQ(frameKindFromType("Inlined"), FrameKind::kInlined);
  EXPECT_EQ(frameKindFromType("Interpreted"), FrameKind::kInterpreted);
  EXPECT_EQ(frameKindFromType("C++"), FrameKind::kNative);
  EXPECT_EQ(frameKindFromType("Kernel"), FrameKind::kKernel);
  EXPECT_EQ(frameKindFromType("something new"), FrameKind::kUnknown);
  EXPECT_EQ(frameKindTag(FrameKind::kKernel), "[k]");
}

TEST(ViewUtf8, WellFormedTextIsKeptAndTheRestReplaced) {
  const std::string fffd = "\xEF\xBF\xBD";
  for (std::string ok : {"java.lang.String", "caf\xC3\xA9", "\xE4\xB8\xAD", "\xF0\x9F\x98\x80", ""}) {
    EXPECT_EQ(validUtf8(ok), ok);
  }
  EXPECT_EQ(validUtf8("a\xFFz"), "a" + fffd + "z");
  EXPECT_EQ(validUtf8("\xC0\xAF"), fffd + fffd);                        // overlong '/'
  EXPECT_EQ(validUtf8("\xED\xA0\x80"), fffd + fffd + fffd);             // a surrogate
  EXPECT_EQ(validUtf8("x\xE4\xB8"), "x" + fffd + fffd);                 // cut short
  EXPECT_EQ(validUtf8("\xF4\x90\x80\x80"), fffd + fffd + fffd + fffd);  // above U+10FFFF
}

TEST(ViewFormat, TimespansRoundLikeJfrView) {
  EXPECT_EQ(jfrViewTimespan(49'574), "0.049600 ms");
  EXPECT_EQ(jfrViewTimespan(290'900), "0.291000 ms");
  EXPECT_EQ(jfrViewTimespan(108'191'789), "108.000000 ms");
  EXPECT_EQ(jfrViewTimespan(20), "0.000020 ms");
  EXPECT_EQ(jfrViewTimespan(20'741), "0.020700 ms");
  EXPECT_EQ(jfrViewTimespan(1'250), "0.001250 ms");
  EXPECT_EQ(jfrViewTimespan(1'255), "0.001260 ms");  // half up, as Math.round
  EXPECT_EQ(jfrViewTimespan(999'600'000), "1.000000 s");
  EXPECT_EQ(jfrViewTimespan(1'234'567'890), "1.230000 s");
  EXPECT_EQ(jfrViewTimespan(75'400'000'000), "1 m 15 s");
  EXPECT_EQ(jfrViewTimespan(2 * 3'600'000'000'000 + 10 * 60'000'000'000), "2 h 10 m");
  EXPECT_EQ(jfrViewTimespan(0), "0 s");
  EXPECT_EQ(jfrViewTimespan(-49'574), "-0.049600 ms");
  EXPECT_EQ(jfrViewTimespan(INT64_MAX).empty(), false);
}

TEST(ViewFormat, NumbersAndDurations) {
  EXPECT_EQ(groupThousands(0), "0");
  EXPECT_EQ(groupThousands(999), "999");
  EXPECT_EQ(groupThousands(120200), "120,200");
  EXPECT_EQ(groupThousands(1234567), "1,234,567");
  EXPECT_EQ(percent(57, 112), "50.89%");
  EXPECT_EQ(percent(1, 0), "0.00%");
  // Ties round up, as `jfr view` (Java's Formatter) prints them: 78.125 and 0.625.
  EXPECT_EQ(percent(125, 160), "78.13%");
  EXPECT_EQ(percent(1, 160), "0.63%");
  EXPECT_EQ(percent(2, 3), "66.67%");
  EXPECT_EQ(percent(999'999, 1'000'000), "100.00%");
  EXPECT_EQ(percent(160, 160), "100.00%");
  EXPECT_EQ(humanDuration(850), "850 ns");
  EXPECT_EQ(humanDuration(4'560'000), "4.56 ms");
  EXPECT_EQ(humanDuration(3'720'000'000), "3.72 s");
  EXPECT_EQ(humanDuration(125'000'000'000), "2 min 5 s");
  EXPECT_EQ(humanBytes(249'568), "249.6 kB");
  EXPECT_EQ(fitWidth("abcdefghij", 8), "abcde...");
  EXPECT_EQ(fitWidth("abc", 8), "abc");
  EXPECT_EQ(fitWidth("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 4), "\xc3\xa9...");  // cut at characters
  EXPECT_EQ(displayWidth("\xc3\xa9t\xc3\xa9"), 3u);
}

TEST(ViewFormat, SettingPeriods) {
  EXPECT_EQ(parseSettingPeriod("20 ms"), 20'000'000);
  EXPECT_EQ(parseSettingPeriod("10ms"), 10'000'000);
  EXPECT_EQ(parseSettingPeriod("1 s"), 1'000'000'000);
  EXPECT_EQ(parseSettingPeriod("500/s"), std::nullopt);
  EXPECT_EQ(parseSettingPeriod("everyChunk"), std::nullopt);
  EXPECT_EQ(parseSettingPeriod("99999999999999999 m"), std::nullopt);
}

TEST(ViewTable, FitsTheWidthByShorteningTextColumns) {
  TextTable table("Title", {{"Method"}, {"Samples", TextTable::Align::kRight}});
  table.addRow({std::string(100, 'x'), "12"});
  table.addRow({"short", "1,234"});
  std::string text = table.render(40);
  std::istringstream lines(text);
  std::string line;
  size_t widest = 0;
  while (std::getline(lines, line)) widest = std::max(widest, line.size());
  EXPECT_EQ(widest, 40u) << text;
  EXPECT_NE(text.find("xxx... "), std::string::npos) << text;
  EXPECT_NE(text.find("short"), std::string::npos);
  EXPECT_NE(text.find("  1,234\n"), std::string::npos) << text;  // numbers right-aligned
}

TEST(ViewConvertApi, FormatNamesAndDefaultOutputs) {
  EXPECT_EQ(parseFormat("html"), Format::kHtml);
  EXPECT_EQ(parseFormat("svg"), std::nullopt);
  EXPECT_EQ(defaultOutputPath("app.jfr", Format::kHtml), "app.html");
  EXPECT_EQ(defaultOutputPath("/x/y/app.jfr", Format::kPprof), "/x/y/app.pb.gz");
  EXPECT_EQ(defaultOutputPath("recording", Format::kCollapsed), "recording.collapsed");
  EXPECT_EQ(defaultOutputPath("dir.jfr/rec", Format::kHtml), "dir.jfr/rec.html");
}

TEST(ViewCommandOptions, SpellingsOfOptionsWithValues) {
  cli::Arguments args({"-o", "a", "-ob", "--output", "c", "--output=d", "--top", "5", "--threads", "rest"});
  std::string value;
  for (const char* expected : {"a", "b", "c", "d"}) {
    ASSERT_TRUE(cli::takeOption(args, "-o", "--output", value, "convert"));
    EXPECT_EQ(value, expected);
  }
  EXPECT_FALSE(cli::takeOption(args, "", "--to", value, "convert"));  // "--top" is another option
  EXPECT_TRUE(cli::takeOption(args, "", "--top", value, "view"));
  EXPECT_EQ(value, "5");
  EXPECT_FALSE(cli::takeFlag(args, "", "--thread"));
  EXPECT_TRUE(cli::takeFlag(args, "", "--threads"));
  EXPECT_EQ(args.next(), "rest");
  EXPECT_TRUE(args.done());
}

TEST(ViewCommandOptions, MissingValueNamesTheCommand) {
  cli::Arguments args({"--width"});
  std::string value;
  try {
    cli::takeOption(args, "", "--width", value, "view");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_STREQ(e.what(), "option --width needs a value (see jfrbpf view --help)");
  }
}

}  // namespace
}  // namespace jfrbpf::test
