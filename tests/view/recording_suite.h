#pragma once
// A gtest fixture for the suites that test one recording: written once per suite, by `Writer::write(path)`
// into a temporary directory (Writer::kFileName), removed with the suite. Its helpers read the recording as
// `jfrbpf view` and `jfrbpf convert` do.
//
//   struct MixedWriter { static constexpr const char* kFileName = "mixed.jfr"; static void write(...); };
//   class ViewMixed : public RecordingSuite<MixedWriter> {};
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tests/view/view_test_support.h"
#include "userspace/view/recording_digest.h"

namespace jfrbpf::test {

template <class Writer>
class RecordingSuite : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    path_ = dir_->file(Writer::kFileName);
    Writer::write(path_);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  // The digest with the --thread and --method filters, of the suite's recording unless `path` says.
  static view::RecordingDigest digest(const std::string& thread = "", const std::string& method = "",
                                      const std::string& path = path_) {
    view::DigestOptions options;
    options.samples.filter.thread = thread;
    options.samples.filter.method = method;
    return view::digestRecording(path, options);
  }
  // Collapsed stacks of the recording converted with `args` (after FILE --to collapsed -o -).
  static std::map<std::string, uint64_t> collapsed(const std::vector<std::string>& args, uint64_t* total) {
    return convertCollapsed(path_, args, total);
  }

  static inline TempDir* dir_ = nullptr;
  static inline std::string path_;
};

}  // namespace jfrbpf::test
