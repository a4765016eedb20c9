#pragma once
// Helpers shared by the view and convert tests.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace jfrbpf::test {

// A fresh directory under the system's temporary directory, removed with everything in it.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::string readFile(const std::string& path);
void writeFile(const std::string& path, const std::string& bytes);

// Collapsed stacks: stack -> weight, and the sum of weights. Fails the test on a malformed line.
std::map<std::string, uint64_t> parseCollapsed(const std::string& text, uint64_t* total = nullptr);

// The test driver that runs `view` and `convert` as jfrbpf's main does.
std::string viewCli();

struct CliResult {
  int exitCode = -1;
  std::string output;  // stdout and stderr
};
CliResult runCli(const std::vector<std::string>& args);
// Runs `args` and expects exit code `exitCode` with a one-line message containing `message`.
void expectCliError(const std::vector<std::string>& args, int exitCode, const std::string& message);
// Collapsed stacks of the recording at `path` converted with `args` (after FILE --to collapsed -o -), and the
// sum of their weights; fails the test when the conversion does.
std::map<std::string, uint64_t> convertCollapsed(const std::string& path, const std::vector<std::string>& args,
                                                 uint64_t* total);

// A gzip'd pprof file as protoc prints it (text format), with the names of its string table; fails the test
// when it cannot be decoded. Callers skip without protoc (see havePprofDecoder).
struct DecodedPprof {
  std::string text;
  std::vector<std::string> strings;  // string_table, in order
  // The sum over the samples of each of their values (sample type i at index i).
  std::vector<int64_t> valueSums() const;
  // The sample types as "type/unit", and the default one's type.
  std::vector<std::string> sampleTypes() const;
  std::string defaultSampleType() const;
};
bool havePprofDecoder();
DecodedPprof decodePprof(const std::string& path);

// Rows of a `jfr view`-style table titled `title` in `text`: the cells of each row below the dashes, split
// at the column boundaries the dashes mark.
std::vector<std::vector<std::string>> tableRows(const std::string& text, const std::string& title);

}  // namespace jfrbpf::test
