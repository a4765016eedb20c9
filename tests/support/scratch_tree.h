#pragma once
// A fixture with a fresh directory under /tmp, removed after the test, and a way to lay files out in it:
// for tests that build a fake /proc or a process root of their own.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace jfrbpf::test {

class ScratchTree : public testing::Test {
 protected:
  void SetUp() override {
    char path[] = "/tmp/jfrbpf-scratch-XXXXXX";
    ASSERT_NE(mkdtemp(path), nullptr);
    root_ = path;
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  // Writes `text` to <root>/<relative>, creating the directories on the way.
  void write(const std::string& relative, const std::string& text) {
    std::filesystem::path p = std::filesystem::path(root_) / relative;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }

  std::string root_;
};

}  // namespace jfrbpf::test
