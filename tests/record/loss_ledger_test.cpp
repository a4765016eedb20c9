// The loss ledger turns the sampler's cumulative per-thread counts into events once: each report writes only
// what grew since the last one, by cause, as jdk.CPUTimeSamplesLost (what the JDK's views count) and
// jfrbpf.SampleLoss (with the cause and the CPU time).
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "formats/jfr/writer/recording.h"
#include "tests/jfr/jdk_tools.h"
#include "userspace/record/output/loss_ledger.h"

namespace jfrbpf::record {
namespace {

TEST(RecordLossLedger, EachCauseIsReportedOnceAsItGrows) {
  test::TempDir dir;
  jfr::Recording out({.path = dir.file("losses.jfr")});
  ThreadRegistry threads(out);
  LossLedger ledger(out, threads);
  const auto tgid = static_cast<uint32_t>(getpid());
  const auto tid = static_cast<uint32_t>(syscall(SYS_gettid));
  ThreadLoss loss{.tid = tid, .tgid = tgid, .lostRingbufFull = 2, .lostCpuNs = 2'000'000, .lostOffCpu = 0,
                  .lostOffCpuNs = 0, .unsampled = 0, .unsampledCpuNs = 0};
  ledger.reportThreadLosses(jfr::Recording::now(), {loss});
  ledger.reportThreadLosses(jfr::Recording::now(), {loss});  // nothing new
  loss.unsampled = 7;
  loss.unsampledCpuNs = 7'000'000;
  ledger.reportThreadLosses(jfr::Recording::now(), {loss});
  loss.unsampled = 9;
  loss.unsampledCpuNs = 9'000'000;
  ledger.reportThreadLosses(jfr::Recording::now(), {loss});

  EXPECT_EQ(ledger.total(), 11u);
  EXPECT_EQ(ledger.attributed(), 11u);
  EXPECT_EQ(ledger.byCause().at(kCauseRingBufferFull), 2u);
  EXPECT_EQ(ledger.byCause().at(kCauseUnsampledAtEnd), 9u);
  out.close();

  if (access((test::jdk17Home() + "/bin/jfr").c_str(), X_OK) != 0)
    GTEST_SKIP() << "no jfr tool in " << test::jdk17Home() << " to read the file";
  const auto print = test::runJfr(test::jdk17Home(), {"print", "--events", "jfrbpf.SampleLoss", dir.file("losses.jfr")});
  ASSERT_EQ(print.exitCode, 0) << print.err;
  EXPECT_NE(print.out.find("lostSamples = 7"), std::string::npos) << print.out;
  EXPECT_NE(print.out.find("lostSamples = 2\n"), std::string::npos) << print.out;
  EXPECT_NE(print.out.find(std::string("cause = \"") + kCauseUnsampledAtEnd + "\""), std::string::npos) << print.out;
  EXPECT_NE(print.out.find("lostCpuTime = 2.00 ms"), std::string::npos) << print.out;
  const auto lost = test::runJfr(test::jdk17Home(), {"summary", dir.file("losses.jfr")});
  ASSERT_EQ(lost.exitCode, 0) << lost.err;
  EXPECT_NE(lost.out.find("jdk.CPUTimeSamplesLost"), std::string::npos) << lost.out;
}

}  // namespace
}  // namespace jfrbpf::record
