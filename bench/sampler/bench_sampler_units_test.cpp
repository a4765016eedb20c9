// The benchmark driver's own logic: statistics, the parsers of /proc, fdinfo, jfrbpf's summary and Google
// Benchmark's JSON, and the BPF machinery its figures rely on. (The benchmarks themselves are never timed tests;
// the child process helper it shares with the tests is tested in tests/support.)
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

#include "base/error.h"
#include "bench/sampler/bpf_probe.h"
#include "bench/sampler/distribution.h"
#include "bench/sampler/fp_sampler.h"
#include "bench/sampler/gbench_json.h"
#include "bench/sampler/jfrbpf_run.h"
#include "bench/sampler/proc_probe.h"

namespace jfrbpf::bench {
namespace {

using namespace std::chrono_literals;

TEST(BenchDistribution, MedianAndSpreadOfOddAndEvenCounts) {
  Distribution odd = distributionOf({5, 1, 3});
  EXPECT_EQ(odd.count, 3u);
  EXPECT_DOUBLE_EQ(odd.median, 3);
  EXPECT_DOUBLE_EQ(odd.min, 1);
  EXPECT_DOUBLE_EQ(odd.max, 5);
  EXPECT_DOUBLE_EQ(distributionOf({4, 1, 3, 2}).median, 2.5);
}

TEST(BenchDistribution, PercentilesInterpolate) {
  std::vector<double> values;
  for (int i = 0; i <= 100; ++i) values.push_back(i);
  Distribution d = distributionOf(values);
  EXPECT_DOUBLE_EQ(d.p10, 10);
  EXPECT_DOUBLE_EQ(d.p90, 90);
}

TEST(BenchDistribution, IgnoresNonFiniteValues) {
  Distribution d = distributionOf({std::numeric_limits<double>::quiet_NaN(), 2, INFINITY});
  EXPECT_EQ(d.count, 1u);
  EXPECT_DOUBLE_EQ(d.median, 2);
  EXPECT_EQ(distributionOf({}).count, 0u);
}

TEST(BenchDistribution, DescribesMedianThenSpread) {
  EXPECT_EQ(describe(distributionOf({1.0, 2.0, 4.0}), 1, "µs"), "2.0 µs (1.0–4.0, n=3)");
  EXPECT_EQ(describe(distributionOf({1.5}), 2, "%"), "1.50% (n=1)");
  EXPECT_EQ(describe(distributionOf({}), 2, "s"), "no data");
  std::vector<double> many(10, 1.0);
  EXPECT_NE(describe(distributionOf(many), 0, "").find("p10–p90"), std::string::npos);
}

TEST(BenchProc, CpuTicksFromStatSurviveOddCommandNames) {
  // utime (14) = 250, stime (15) = 50; the name holds spaces and a ')'.
  std::string stat = "4242 (my (odd) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 3 0";
  EXPECT_EQ(cpuTicksFromStat(stat), 300u);
  EXPECT_EQ(cpuTicksFromStat("4242 (truncated) S 1 2"), std::nullopt);
  EXPECT_EQ(cpuTicksFromStat("no parenthesis"), std::nullopt);
}

TEST(BenchProc, OwnCpuTimeIsReadable) {
  volatile double sink = 0;
  for (int i = 0; i < 5'000'000; ++i) sink = sink + std::sqrt(static_cast<double>(i));
  EXPECT_TRUE(processCpuNs(getpid()).has_value());
  EXPECT_EQ(processCpuNs(-1), std::nullopt);
  std::optional<uint64_t> exact = processCpuClockNs(getpid());
  ASSERT_TRUE(exact.has_value());
  EXPECT_GT(*exact, 0u);
  EXPECT_EQ(processCpuClockNs(-1), std::nullopt);
}

TEST(BenchProc, MemoryFromStatus) {
  std::string status = "Name:\tjfrbpf\nVmPeak:\t  999 kB\nVmHWM:\t   2048 kB\nVmRSS:\t   1024 kB\n";
  std::optional<MemoryUse> m = memoryFromStatus(status);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->rssBytes, 1024u * 1024);
  EXPECT_EQ(m->peakRssBytes, 2048u * 1024);
  EXPECT_EQ(memoryFromStatus("Name:\tzombie\nState:\tZ\n"), std::nullopt);
  ASSERT_TRUE(memoryOf(getpid()));
  EXPECT_GT(memoryOf(getpid())->rssBytes, 0u);
}

TEST(BenchProc, VoluntarySwitchesNotConfusedWithNonvoluntary) {
  std::string status = "Name:\tx\nnonvoluntary_ctxt_switches:\t9\nvoluntary_ctxt_switches:\t4\n";
  EXPECT_EQ(voluntarySwitchesFromStatus(status), 4u);
  EXPECT_EQ(voluntarySwitchesFromStatus("nonvoluntary_ctxt_switches:\t9\n"), std::nullopt);
  std::this_thread::sleep_for(1ms);  // a voluntary switch of this thread
  EXPECT_GT(voluntarySwitches(getpid()), 0u);
}

TEST(BenchProc, RssByKindOfMapping) {
  std::string smaps =
      "55d0c0000000-55d0c0100000 r-xp 00000000 fd:01 123 /usr/bin/jfrbpf\n"
      "Size:               1024 kB\nRss:                 100 kB\n"
      "7f0000000000-7f0001000000 rw-p 00000000 00:00 0 \n"
      "Rss:                 300 kB\n"
      "55d0c1000000-55d0c2000000 rw-p 00000000 00:00 0                          [heap]\n"
      "Rss:                  20 kB\n"
      "7f1000000000-7f1001000000 r--s 00000000 00:0f 77                         anon_inode:bpf-map\n"
      "Rss:                4096 kB\n"
      "7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0                          [vdso]\n"
      "Rss:                   8 kB\n";
  RssBreakdown r = rssBreakdownFromSmaps(smaps);
  EXPECT_EQ(r.files, 100u * 1024);
  EXPECT_EQ(r.anonymous, 320u * 1024);
  EXPECT_EQ(r.bpfMaps, 4096u * 1024);
  EXPECT_EQ(r.other, 8u * 1024);
  EXPECT_GT(rssBreakdown(getpid()).files, 0u);
}

TEST(BenchBpfProbe, FdinfoFieldsByExactKey) {
  std::string fdinfo = "pos:\t0\nprog_type:\t7\nprog_id_extra:\t1\nprog_id:\t42\nrun_time_ns:\t123456\nrun_cnt:\t7\n";
  EXPECT_EQ(fdinfoField(fdinfo, "prog_id"), 42u);
  EXPECT_EQ(fdinfoField(fdinfo, "run_cnt"), 7u);
  EXPECT_EQ(fdinfoField(fdinfo, "run_time_ns"), 123456u);
  EXPECT_EQ(fdinfoField(fdinfo, "memlock"), std::nullopt);
  EXPECT_EQ(fdinfoField("xprog_id:\t5\n", "prog_id"), std::nullopt);
}

TEST(BenchJfrbpfSummary, ParsesCountsAndDebugCounters) {
  const char* text =
      "jfrbpf: wrote /tmp/x/a.jfr (10.0 s, duration reached)\n"
      "  samples  35,530 (35.53 s of CPU time at 1 ms per sample), 3 without a user stack\n"
      "  lost     12 of 35,542 sampling ticks (0.03 %: 12 ring buffer full)\n"
      "  threads  11\n"
      "  [debug] overflows                  37,210\n"
      "  [debug] not target                 168\n"
      "  [debug] walk: JavaFrameAnchor used 0\n";
  JfrbpfSummary s = parseJfrbpfSummary(text);
  EXPECT_TRUE(s.valid);
  EXPECT_DOUBLE_EQ(s.seconds, 10.0);
  EXPECT_EQ(s.samples, 35530u);
  EXPECT_EQ(s.lost, 12u);
  EXPECT_EQ(s.overflows, 35542u);
  EXPECT_EQ(s.counters["overflows"], 37210u);
  EXPECT_EQ(s.counters["not target"], 168u);
  EXPECT_EQ(s.counters["walk: JavaFrameAnchor used"], 0u);
  EXPECT_FALSE(parseJfrbpfSummary("jfrbpf: no process with pid 1\n").valid);
}

TEST(BenchGoogleBenchmarkJson, ReadsRowsAndCounters) {
  const char* json = R"({
    "context": {"date": "2026-11-21", "caches": [{"type": "Data", "level": 1}], "library_build_type": "release"},
    "benchmarks": [
      {"name": "BM_A/0_median", "run_name": "BM_A/0", "run_type": "aggregate", "aggregate_name": "median",
       "iterations": 5, "real_time": 1.25e+02, "cpu_time": 120, "time_unit": "ns", "events/s": 2.5e6,
       "bytes/event": 21.5, "label": "a \"quoted\" label"},
      {"name": "BM_A/0_cv", "run_name": "BM_A/0", "aggregate_name": "cv", "real_time": 0.02}
    ]
  })";
  std::vector<BenchmarkRow> rows = parseBenchmarkJson(json);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].text.at("aggregate_name"), "median");
  EXPECT_EQ(rows[0].text.at("label"), "a \"quoted\" label");
  EXPECT_DOUBLE_EQ(rows[0].numbers.at("real_time"), 125);
  EXPECT_DOUBLE_EQ(rows[0].numbers.at("events/s"), 2.5e6);
  EXPECT_TRUE(isStandardField("cpu_time"));
  EXPECT_FALSE(isStandardField("bytes/event"));
  EXPECT_DOUBLE_EQ(rows[1].numbers.at("real_time"), 0.02);
}

TEST(BenchGoogleBenchmarkJson, RejectsOtherText) {
  EXPECT_THROW(parseBenchmarkJson("Run on (2 X 2000 MHz CPU s)"), Error);
  EXPECT_THROW(parseBenchmarkJson(R"({"context": {}})"), Error);
  EXPECT_THROW(parseBenchmarkJson(R"({"benchmarks": [{"name": "x")"), Error);
}

// The machinery every BPF figure relies on, against the real kernel: the reference sampler walks the
// frame-pointer build of the native workload, and its program is found and read like jfrbpf's.
TEST(BenchBpfMachinery, ReferenceSamplerAndProgramProbe) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to load BPF programs";
  ChildProcess workload({BENCH_NATIVE_CHAIN_FP, "20", "1"});
  ASSERT_TRUE(workload.awaitLine("ready", 30s));
  BpfStatsSwitch stats;
  FramePointerSampler sampler(workload.pid(), 1'000'000);
  std::optional<ProgramProbe> probe = ProgramProbe::find(getpid(), "fp_sample");
  ASSERT_TRUE(probe) << "the benchmark's own program is not among this process's fds";
  EXPECT_EQ(probe->id(), ProgramProbe::ofFd(sampler.programFd()).id());
  EXPECT_GT(probe->verifiedInstructions(), 0u);
  EXPECT_GT(bpfMapBytes(getpid()), 16u << 20);  // its ring buffer alone
  auto until = std::chrono::steady_clock::now() + 3s;
  while (sampler.records() < 100 && std::chrono::steady_clock::now() < until) sampler.poll(100);
  ASSERT_GT(sampler.records(), 0u) << "the workload was never sampled";
  // The chain is 16 frames between chain_thread and chain_leaf; glibc's thread start has no frame pointer.
  EXPECT_GE(sampler.meanUserFrames(), 16.0);
  ProgramTotals totals = probe->totals();
  EXPECT_GE(totals.runCount, sampler.records());
  EXPECT_GT(totals.runTimeNs, 0u);
  EXPECT_EQ(ProgramProbe::find(getpid(), "no_such_prog"), std::nullopt);
}

}  // namespace
}  // namespace jfrbpf::bench
