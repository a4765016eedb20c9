#pragma once
// Test helper: a recording with allocation samples (jdk.ObjectAllocationSample) whose numbers are known
// exactly, written with jfrbpf's own JFR writer as jfrbpf record --alloc writes them.
#include <cstdint>
#include <string>

namespace jfrbpf::test {

// What writeAllocationRecording puts in the file (weights in bytes). 11 samples of 5,000,000 bytes in all:
//   main (tid 3001), under Work.main(String[]):
//     3 x byte[] ("[B") of 1,000,000 at Work.readAll(), 2 x java.lang.String of 200,000 at Work.format(int);
//   worker-1 (tid 3002, OS name wkr-1), under java.lang.Thread.run():
//     2 x java.lang.Object[] ("[Ljava/lang/Object;") of 400,000 at Work.grow(); then in the second chunk
//     1 x byte[] of 500,000 at Work.grow(), 2 x com.example.Node of 100,000 and 1 x int[][] ("[[I") of
//     100,000 at Work.link().
struct AllocationRecordingFacts {
  static constexpr uint64_t kSamples = 11, kMainSamples = 5, kWorkerSamples = 6;
  static constexpr int64_t kReadAll = 3'000'000, kFormat = 400'000, kGrowObjects = 800'000, kGrowBytes = 500'000,
                           kLinkNodes = 200'000, kLinkArrays = 100'000;
  static constexpr int64_t kMain = kReadAll + kFormat;                                       // 3,400,000
  static constexpr int64_t kWorker = kGrowObjects + kGrowBytes + kLinkNodes + kLinkArrays;  // 1,600,000
  static constexpr int64_t kBytes = kMain + kWorker;                                        // 5,000,000
};

// Writes the recording in two chunks.
AllocationRecordingFacts writeAllocationRecording(const std::string& path);

}  // namespace jfrbpf::test
