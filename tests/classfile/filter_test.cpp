// JEP 520 filter grammar and matching (jvmsupport/filter).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "jvmsupport/filter/filter.h"
#include "jvmsupport/filter/filter_argument.h"
#include "tests/classfile/test_support.h"

namespace jfrbpf::filter {
namespace {

using Kind = Target::Kind;

Filter parsed(std::string_view text) {
  FilterParseResult result = parseFilter(text);
  EXPECT_FALSE(result.error) << text << ": " << result.error->message;
  return result.filter;
}

FilterError errorOf(std::string_view text, Separators separators = Separators::kSemicolon) {
  FilterParseResult result = parseFilter(text, separators);
  EXPECT_TRUE(result.error) << "'" << text << "' should not parse";
  return result.error.value_or(FilterError{});
}

constexpr uint16_t kPublic = 0x0001;
constexpr uint16_t kStatic = 0x0008;
constexpr uint16_t kBridge = 0x0040;
constexpr uint16_t kNative = 0x0100;
constexpr uint16_t kAbstract = 0x0400;
constexpr uint16_t kSynthetic = 0x1000;

bool matches(const Filter& filter, std::string_view className, std::string_view method, uint16_t flags = kPublic,
             std::vector<std::string> classAnnotations = {}, std::vector<std::string> methodAnnotations = {}) {
  return filter.matches(MethodCandidate{className, method, flags, classAnnotations, methodAnnotations});
}

TEST(ClassfileFilter, ParsesEveryTargetForm) {
  Filter filter = parsed("com.foo.Bar;com.foo.Bar::run;::<clinit>;@com.foo.Timed;com.foo.Outer$Inner::<init>");
  ASSERT_EQ(filter.targets().size(), 5u);
  EXPECT_EQ(filter.targets()[0], (Target{Kind::kClass, "com/foo/Bar", "", ""}));
  EXPECT_EQ(filter.targets()[1], (Target{Kind::kClassMethod, "com/foo/Bar", "run", ""}));
  EXPECT_EQ(filter.targets()[2], (Target{Kind::kMethod, "", "<clinit>", ""}));
  EXPECT_EQ(filter.targets()[3], (Target{Kind::kAnnotation, "", "", "Lcom/foo/Timed;"}));
  EXPECT_EQ(filter.targets()[4], (Target{Kind::kClassMethod, "com/foo/Outer$Inner", "<init>", ""}));
  EXPECT_EQ(filter.toString(), "com.foo.Bar;com.foo.Bar::run;::<clinit>;@com.foo.Timed;com.foo.Outer$Inner::<init>");
}

TEST(ClassfileFilter, ClassInTheDefaultPackageAndUnicodeNames) {
  EXPECT_EQ(parsed("Main::main").targets()[0], (Target{Kind::kClassMethod, "Main", "main", ""}));
  EXPECT_EQ(parsed("dé.Grüße::größe").targets()[0], (Target{Kind::kClassMethod, "dé/Grüße", "größe", ""}));
  EXPECT_EQ(parsed("_x.$y::_z").targets()[0], (Target{Kind::kClassMethod, "_x/$y", "_z", ""}));
}

TEST(ClassfileFilter, WhitespaceAroundTargetsIsIgnored) {
  Filter filter = parsed("  com.foo.Bar ;\t::run  ;  @com.foo.Ann\r\n");
  ASSERT_EQ(filter.targets().size(), 3u);
  EXPECT_EQ(filter.toString(), "com.foo.Bar;::run;@com.foo.Ann");
}

TEST(ClassfileFilter, EmptyFilterAndEmptyTargetsSelectNothing) {
  EXPECT_TRUE(parsed("").empty());
  EXPECT_TRUE(parsed("   ").empty());
  EXPECT_TRUE(parsed(";;").empty());
  EXPECT_FALSE(matches(parsed(""), "com/foo/Bar", "run"));
  EXPECT_EQ(parsed(";com.foo.Bar;;").targets().size(), 1u);
}

TEST(ClassfileFilter, DuplicatesCollapse) {
  Filter filter = parsed("com.foo.Bar;com.foo.Bar ; com.foo.Bar::x;com.foo.Bar::x;@a.B;@a.B");
  EXPECT_EQ(filter.toString(), "com.foo.Bar;com.foo.Bar::x;@a.B");
}

TEST(ClassfileFilter, ErrorPointsAtTheEmptyMethodName) {
  FilterError error = errorOf("com.foo.Bar::");
  EXPECT_EQ(error.column, 12u);
  EXPECT_NE(error.message.find("expected a method name after '::'"), std::string::npos);
  EXPECT_EQ(describeFilterError("--method-timing", "com.foo.Bar::", error),
            "jfrbpf: invalid --method-timing filter at column 12: expected a method name after '::' (write "
            "com.foo.Bar alone for every method of the class)\n"
            "  com.foo.Bar::\n"
            "             ^");
  EXPECT_EQ(errorOf("::").column, 1u);
  EXPECT_EQ(errorOf("a.B; ::").column, 6u);
}

TEST(ClassfileFilter, ErrorsNameTheOffendingCharacter) {
  struct Case {
    const char* text;
    size_t column;
    const char* fragment;
  };
  const Case cases[] = {
      {"com.foo.Bar:run", 12, "':'"},
      {"com..Bar", 5, "empty name between two '.'"},
      {".Bar", 1, "cannot start with '.'"},
      {"com.foo.", 9, "expected a name after '.'"},
      {"com.9lives.Cat", 5, "cannot start with a digit"},
      {"com.foo.Bar::run()", 17, "'('"},
      {"com.foo.Bar::<foo>", 14, "only <init> and <clinit>"},
      {"com.foo.Bar::9x", 14, "cannot start with a digit"},
      {"com.class.Bar", 5, "'class' is a reserved word"},
      {"com.foo.Bar::new", 14, "'new' is a reserved word"},
      {"_.Foo", 1, "'_' is a reserved word"},
      {"@", 1, "expected an annotation class name after '@'"},
      {"@com.foo.Ann::x", 13, "':'"},
      {"com.foo.Bar :: run", 12, "whitespace"},
      {"com/foo/Bar", 4, "write class names with '.'"},
      {"com.foo.*", 9, "wildcards"},
      {"a.B;c.D;e#F", 10, "'#'"},
      {"::a::b", 4, "':'"},
      {"a.\xff", 3, "not UTF-8"},
      {"a.b\x01", 4, "control character"},
  };
  for (const Case& c : cases) {
    FilterError error = errorOf(c.text);
    EXPECT_EQ(error.column, c.column) << c.text << ": " << error.message;
    EXPECT_NE(error.message.find(c.fragment), std::string::npos) << c.text << ": " << error.message;
  }
}

TEST(ClassfileFilter, ColumnsCountCharactersNotBytes) {
  FilterError error = errorOf("é.ü#");
  EXPECT_EQ(error.column, 4u);
  std::string described = describeFilterError("--method-trace", "é.ü#", error);
  EXPECT_EQ(described.substr(described.rfind('\n') + 1), "     ^");
}

TEST(ClassfileFilter, FileSyntaxSeparatesByLineAndReportsLines) {
  Filter filter = parseFilter("com.foo.Bar\n\n  ::run ; @a.B\n", Separators::kSemicolonOrNewline).filter;
  EXPECT_EQ(filter.toString(), "com.foo.Bar;::run;@a.B");
  FilterError error = errorOf("com.foo.Bar\n  com.foo.Baz::\n", Separators::kSemicolonOrNewline);
  EXPECT_EQ(error.line, 2u);
  EXPECT_EQ(error.column, 14u);
  EXPECT_EQ(describeFilterError("--method-trace", "com.foo.Bar\n  com.foo.Baz::\n", error, "targets.txt"),
            "jfrbpf: invalid --method-trace filter in targets.txt at line 2, column 14: expected a method name "
            "after '::' (write com.foo.Baz alone for every method of the class)\n"
            "    com.foo.Baz::\n"
            "               ^");
}

TEST(ClassfileFilter, ClassTargetMatchesEveryConcreteMethodDottedOrInternal) {
  Filter filter = parsed("com.foo.Bar");
  EXPECT_TRUE(matches(filter, "com/foo/Bar", "run"));
  EXPECT_TRUE(matches(filter, "com.foo.Bar", "run"));
  EXPECT_TRUE(matches(filter, "com/foo/Bar", "<init>"));
  EXPECT_TRUE(matches(filter, "com/foo/Bar", "<clinit>", kStatic));
  EXPECT_FALSE(matches(filter, "com/foo/Bar$Inner", "run"));
  EXPECT_FALSE(matches(filter, "com/foo/BarBaz", "run"));
  EXPECT_FALSE(matches(filter, "com/foo", "run"));
}

TEST(ClassfileFilter, AbstractNativeAndSyntheticMethodsNeverMatch) {
  Filter filter = parsed("com.foo.Bar;::run;@a.B");
  EXPECT_FALSE(matches(filter, "com/foo/Bar", "run", kPublic | kAbstract));
  EXPECT_FALSE(matches(filter, "com/foo/Bar", "run", kPublic | kNative));
  EXPECT_FALSE(matches(filter, "com/foo/Bar", "lambda$run$0", kStatic | kSynthetic));
  EXPECT_FALSE(matches(filter, "com/foo/Bar", "compareTo", kPublic | kBridge | kSynthetic));
  EXPECT_FALSE(matches(filter, "x/Y", "m", kPublic | kAbstract, {"La/B;"}));
}

TEST(ClassfileFilter, MethodTargetsMatchEveryOverloadAndOnlyThatName) {
  Filter filter = parsed("com.foo.Bar::run;::<clinit>;::<init>");
  EXPECT_TRUE(matches(filter, "com/foo/Bar", "run"));  // run(), run(int), ...: the name is all that counts
  EXPECT_FALSE(matches(filter, "com/foo/Bar", "runs"));
  EXPECT_FALSE(matches(filter, "com/foo/Other", "run"));
  EXPECT_TRUE(matches(filter, "any/Class", "<clinit>", kStatic));
  EXPECT_TRUE(matches(filter, "any/Class", "<init>"));
  EXPECT_FALSE(matches(parsed("com.foo.Bar::<init>"), "com/foo/Bar", "<clinit>", kStatic));
}

TEST(ClassfileFilter, AnnotationsOnTheClassOrTheMethodMatch) {
  Filter filter = parsed("@com.foo.Timed");
  EXPECT_TRUE(matches(filter, "x/Y", "m", kPublic, {}, {"Lcom/foo/Timed;"}));
  EXPECT_TRUE(matches(filter, "x/Y", "<init>", kPublic, {"Ljava/lang/Deprecated;", "Lcom/foo/Timed;"}, {}));
  EXPECT_FALSE(matches(filter, "x/Y", "m", kPublic, {"Lcom/foo/Timed2;"}, {"Lcom/foo/TimedX;"}));
  EXPECT_FALSE(matches(filter, "com/foo/Timed", "m"));  // the annotation type itself is not a class target
}

TEST(ClassfileFilter, MayMatchClassIsConservative) {
  EXPECT_TRUE(parsed("com.foo.Bar").mayMatchClass("com/foo/Bar"));
  EXPECT_TRUE(parsed("com.foo.Bar::x").mayMatchClass("com.foo.Bar"));
  EXPECT_FALSE(parsed("com.foo.Bar").mayMatchClass("com/foo/Baz"));
  EXPECT_FALSE(parsed("").mayMatchClass("com/foo/Baz"));
  EXPECT_TRUE(parsed("com.foo.Bar;::x").mayMatchClass("any/Class"));
  EXPECT_TRUE(parsed("@a.B").mayMatchClass("any/Class"));
}

class ClassfileFilterArgument : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = classfile::testing::scratchDirectory("filter-argument");
    previous_ = std::filesystem::current_path();
    std::filesystem::current_path(directory_);
  }
  void TearDown() override { std::filesystem::current_path(previous_); }

  std::filesystem::path directory_;
  std::filesystem::path previous_;
};

TEST_F(ClassfileFilterArgument, ReadsAFileNamedWithASlash) {
  classfile::testing::writeText(directory_ / "targets.txt", "com.foo.Bar\n::<clinit>; @a.B\n\n");
  FilterArgumentResult result = parseFilterArgument("--method-timing", "@./targets.txt");
  EXPECT_EQ(result.error, "");
  EXPECT_EQ(result.filter.toString(), "com.foo.Bar;::<clinit>;@a.B");
  result = parseFilterArgument("--method-timing", "@" + (directory_ / "targets.txt").string());
  EXPECT_EQ(result.filter.toString(), "com.foo.Bar;::<clinit>;@a.B");
}

TEST_F(ClassfileFilterArgument, FileErrorsNameTheFileAndLine) {
  classfile::testing::writeText(directory_ / "bad.txt", "com.foo.Bar\ncom.foo..Baz\n");
  FilterArgumentResult result = parseFilterArgument("--method-trace", "@./bad.txt");
  EXPECT_EQ(result.error,
            "jfrbpf: invalid --method-trace filter in ./bad.txt at line 2, column 9: empty name between two '.'\n"
            "  com.foo..Baz\n"
            "          ^");
  result = parseFilterArgument("--method-trace", "@./missing.txt");
  EXPECT_EQ(result.error, "jfrbpf: cannot read the --method-trace filter file ./missing.txt: No such file or directory");
}

TEST_F(ClassfileFilterArgument, AtWithoutSlashIsAnAnnotationUnlessAFileMakesItAmbiguous) {
  FilterArgumentResult result = parseFilterArgument("--method-timing", "@com.foo.Timed");
  EXPECT_EQ(result.error, "");
  EXPECT_EQ(result.filter.targets()[0].kind, Kind::kAnnotation);
  classfile::testing::writeText(directory_ / "targets.txt", "com.foo.Bar\n");
  result = parseFilterArgument("--method-timing", "@targets.txt");
  EXPECT_NE(result.error.find("is ambiguous"), std::string::npos) << result.error;
  EXPECT_NE(result.error.find("@./targets.txt"), std::string::npos) << result.error;
  result = parseFilterArgument("--method-timing", "@targets.txt;");
  EXPECT_EQ(result.error, "");
  EXPECT_EQ(result.filter.toString(), "@targets.txt");
}

TEST_F(ClassfileFilterArgument, PlainArgumentErrorsPointAtTheColumn) {
  FilterArgumentResult result = parseFilterArgument("--method-timing", "com.foo.Bar::");
  EXPECT_EQ(result.error.substr(0, result.error.find('\n')),
            "jfrbpf: invalid --method-timing filter at column 12: expected a method name after '::' (write "
            "com.foo.Bar alone for every method of the class)");
}

}  // namespace
}  // namespace jfrbpf::filter
