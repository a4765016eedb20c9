// Second oracle: binutils' own interpretation of the CFA programs (readelf --debug-dump=frames-interp)
// must agree with the compiled tables at every row readelf prints.
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/unique_fd.h"
#include "test_config.h"
#include "userspace/unwind/table_compiler.h"

namespace jfrbpf::unwind {
namespace {

struct ReadelfRow {
  uint64_t pc;
  uint64_t end;  // where the next row (or the FDE) begins
  uint64_t fdeBegin;
  std::string cfa;
  std::string rbp = "u";
  std::string rsp = "u";
  std::string ra = "u";
};

std::vector<std::string> splitColumns(const std::string& line) {
  // Register names print as "r9 (r9)": a token in parentheses belongs to the one before it.
  std::istringstream in(line);
  std::vector<std::string> tokens;
  std::string token;
  while (in >> token) {
    if (token.starts_with("(") && !tokens.empty()) {
      tokens.back() += " " + token;
    } else {
      tokens.push_back(token);
    }
  }
  return tokens;
}

// Rows of every FDE that no other FDE overlaps (where FDEs overlap, the table keeps only one of them).
std::vector<ReadelfRow> readelfRows(const std::string& path) {
  std::string command = "readelf --wide --debug-dump=frames-interp '" + path + "' 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
  std::vector<ReadelfRow> rows;
  if (!pipe) return rows;
  std::vector<std::pair<uint64_t, uint64_t>> fdes;
  std::vector<std::string> columns;
  uint64_t fdeBegin = 0, fdeEnd = 0;
  bool inFde = false;
  char buffer[4096];
  while (fgets(buffer, sizeof(buffer), pipe.get()) != nullptr) {
    std::string line(buffer);
    if (line.find(" FDE ") != std::string::npos) {
      size_t pc = line.find("pc=");
      if (pc == std::string::npos) continue;
      fdeBegin = std::stoull(line.substr(pc + 3), nullptr, 16);
      fdeEnd = std::stoull(line.substr(line.find("..", pc) + 2), nullptr, 16);
      inFde = fdeBegin != 0 && fdeEnd > fdeBegin;
      if (inFde) fdes.emplace_back(fdeBegin, fdeEnd);
      columns.clear();
      continue;
    }
    if (line.find(" CIE") != std::string::npos) inFde = false;
    std::vector<std::string> tokens = splitColumns(line);
    if (tokens.empty()) continue;
    if (tokens[0] == "LOC") {
      columns = tokens;
      continue;
    }
    bool isRow = tokens[0].size() == 16 && tokens[0].find_first_not_of("0123456789abcdef") == std::string::npos;
    if (!inFde || !isRow || columns.size() < 2 || tokens.size() != columns.size()) continue;
    ReadelfRow row{std::stoull(tokens[0], nullptr, 16), fdeEnd, fdeBegin, tokens[1]};
    if (row.pc >= fdeEnd) continue;
    if (!rows.empty() && rows.back().fdeBegin == fdeBegin) rows.back().end = row.pc;
    for (size_t i = 2; i < columns.size(); ++i) {
      if (columns[i] == "rbp") row.rbp = tokens[i];
      if (columns[i] == "rsp") row.rsp = tokens[i];
      if (columns[i] == "ra") row.ra = tokens[i];
    }
    rows.push_back(row);
  }
  std::sort(fdes.begin(), fdes.end());
  std::set<uint64_t> overlapping;
  for (size_t i = 1; i < fdes.size(); ++i) {
    if (fdes[i].first < fdes[i - 1].second) {
      overlapping.insert(fdes[i].first);
      overlapping.insert(fdes[i - 1].first);
    }
  }
  std::erase_if(rows, [&](const ReadelfRow& row) { return overlapping.contains(row.fdeBegin); });
  return rows;
}

// What the table must say for a readelf row, in describeRow() form; "unsupported-or-special" for "exp".
std::string expectedRule(const ReadelfRow& row) {
  if (row.cfa == "exp") return "exp";
  if (row.ra == "u") return "end-of-stack";
  bool rspBased = row.cfa.starts_with("rsp+");
  bool rbpBased = row.cfa.starts_with("rbp+");
  if (!rspBased && !rbpBased) return "unsupported";
  long offset = std::stol(row.cfa.substr(4));
  if (offset % 8 != 0 || offset / 8 > UINT16_MAX || row.ra != "c-8" || row.rsp != "u") return "unsupported";
  std::string rule = row.cfa;
  if (row.rbp.starts_with("c-") || row.rbp.starts_with("c+")) {
    long saved = std::stol(row.rbp.substr(1));
    bool fits = saved != 0 && saved % 8 == 0 && saved / 8 >= -127 && saved / 8 <= 127;
    rule += fits ? " rbp=[cfa" + std::to_string(saved) + "]" : " rbp=lost";
  } else if (row.rbp != "u" && row.rbp != "s") {
    rule += " rbp=lost";
  }
  return "cfa=" + rule;
}

UnwindTable compileFile(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) throw Error("cannot open " + path);
  ByteSource source = ByteSource::fromFd(fd.get());
  ElfImage image(source);
  return compileUnwindTable(image);
}

void compareWithReadelf(const std::string& path, size_t minimumRows) {
  if (::access(path.c_str(), R_OK) != 0) GTEST_SKIP() << path << " is not installed";
  if (std::system("readelf --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "readelf (binutils) not installed";
  UnwindTable table = compileFile(path);
  std::vector<ReadelfRow> rows = readelfRows(path);
  ASSERT_GE(rows.size(), minimumRows) << "readelf printed too few rows for " << path;
  size_t mismatches = 0;
  for (const ReadelfRow& row : rows) {
    std::string expected = expectedRule(row);
    // The rule must hold over the row's whole range: check its first and its last byte.
    for (uint64_t pc : {row.pc, row.end - 1}) {
      const UnwindRow* found = table.find(pc);
      std::string actual = found ? describeRow(*found) : "(no row)";
      bool special = found && (found->kind == JFRBPF_UNWIND_PLT || found->kind == JFRBPF_UNWIND_SIGNAL ||
                               found->kind == JFRBPF_UNWIND_UNSUPPORTED);
      bool same = expected == "exp" ? special : actual == expected;
      if (!same && ++mismatches <= 10) {
        ADD_FAILURE() << path << " at " << std::hex << pc << ": readelf says cfa=" << row.cfa << " rbp=" << row.rbp
                      << " ra=" << row.ra << ", table says " << actual;
      }
    }
  }
  EXPECT_EQ(mismatches, 0u) << "of " << rows.size() << " rows in " << path;
  std::printf("%s: %zu readelf rows checked at both ends against %zu table rows, %zu mismatches\n", path.c_str(),
              rows.size(), table.rows.size(), mismatches);
}

TEST(UnwindReadelfOracle, Libc) { compareWithReadelf("/lib/x86_64-linux-gnu/libc.so.6", 10000); }
TEST(UnwindReadelfOracle, Libz) { compareWithReadelf("/lib/x86_64-linux-gnu/libz.so.1", 500); }
TEST(UnwindReadelfOracle, DynamicLinker) { compareWithReadelf("/lib64/ld-linux-x86-64.so.2", 500); }
TEST(UnwindReadelfOracle, Libjvm) {
  compareWithReadelf(std::string(::jfrbpf::test::kJdkHome) + "/lib/server/libjvm.so", 100000);
}
TEST(UnwindReadelfOracle, ChainProgramAndLibraries) {
  compareWithReadelf(UNWIND_CHAIN_PROGRAM, 20);
  compareWithReadelf(UNWIND_CHAIN_LIB_A, 20);
}
// Libraries with the frames the tables do not support (stack realignment, CFA in r10/r13): the rows
// must say "unsupported" exactly there.
TEST(UnwindReadelfOracle, LibrariesWithUnsupportedFrames) {
  for (const char* path : {"/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/usr/lib/x86_64-linux-gnu/libcrypto.so.3",
                           "/usr/lib/x86_64-linux-gnu/libx265.so.199"}) {
    if (::access(path, R_OK) == 0) compareWithReadelf(path, 1000);
  }
}
TEST(UnwindReadelfOracle, DebugFrameOnlyLibrary) { compareWithReadelf(UNWIND_CHAIN_LIB_B, 6); }

}  // namespace
}  // namespace jfrbpf::unwind
