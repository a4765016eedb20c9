// record --push as a node runs it: `record --all --rotate` of JVMs that come and go, pushing to an OTLP and a
// Pyroscope backend on the loopback, one of which goes down for a while. Every finished file reaches both,
// once: Pyroscope byte for byte, OTLP with every CPU sample and the resource attributes of its JVM.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iterator>
#include <map>
#include <thread>

#include "formats/convert/sample_collector.h"
#include "formats/jfr/reader/recording.h"
#include "tests/java_e2e/workloads.h"
#include "tests/push/loopback_receiver.h"
#include "tests/view/otlp_request_reader.h"

namespace jfrbpf::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

std::string contents(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(PushRecord, HostRecordingDeliversEveryRotatedFileToBothBackendsOnceThroughAnOutage) {
  JAVA_E2E_REQUIRE(17);
  ScratchDir dir("push-all");
  LoopbackReceiver collector, pyroscope;
  auto staying = std::make_unique<Workload>(javaCommand(17, {}, "CpuShares", {"60"}), 4);
  auto leaving = std::make_unique<Workload>(javaCommand(17, {}, "CpuShares", {"5"}), 4);
  ChildProcess recorder({jfrbpfBinary(), "record", "--all", "-d", "14s", "--rotate", "2s", "-o",
                         dir.path().string(), "--push", "otlp=" + collector.url(), "--push",
                         "pyroscope=" + pyroscope.url()},
                        {.captureStderr = true});
  auto eventually = [](const std::function<bool()>& done) {
    for (int i = 0; i < 600 && !done(); ++i) std::this_thread::sleep_for(50ms);
    return done();
  };
  ASSERT_TRUE(eventually([&] { return !pyroscope.requests().empty(); }));  // the first file went
  pyroscope.setFault(ReceiverFault::kDown);
  // Down until a file finished meanwhile waits in the spool (its first attempt refused).
  const fs::path spools = dir.path() / ".jfrbpf-push";
  ASSERT_TRUE(eventually([&] {
    for (const auto& spool : fs::directory_iterator(spools)) {
      if (spool.path().filename().string().starts_with("pyroscope-") && !fs::is_empty(spool.path())) return true;
    }
    return false;
  }));
  std::this_thread::sleep_for(1s);
  pyroscope.setFault(ReceiverFault::kNone);
  RunResult r{recorder.wait(90s).value_or(-1), recorder.readAll(1s)};
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("pyroscope=" + pyroscope.url() + " failing"), std::string::npos) << r.output;

  std::map<std::string, std::string> files;  // name -> contents
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    if (entry.path().extension() == ".jfr") files[entry.path().filename().string()] = contents(entry.path());
  }
  ASSERT_GE(files.size(), 5u) << r.output;  // 14 s in 2-s files of one JVM, and the other's
  EXPECT_NE(r.output.find("pushed   otlp=" + collector.url() + ": " + std::to_string(files.size()) +
                          " delivered, 0 pending, 0 failed, 0 dropped"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("pushed   pyroscope=" + pyroscope.url() + ": " + std::to_string(files.size()) +
                          " delivered, 0 pending, 0 failed, 0 dropped"),
            std::string::npos)
      << r.output;

  // Pyroscope: each file once, as written, and its CPU time as Pyroscope weighs it (each jdk.ExecutionSample
  // 1e9 / sampleRate ns) equal to the file's (the jdk.CPUTimeSample periods).
  std::multiset<std::string> uploaded;
  for (const ReceivedRequest& request : pyroscope.requests()) {
    const std::vector<FormPart> parts = formParts(request);
    ASSERT_GE(parts.size(), 1u);
    uploaded.insert(parts[0].data);
    const std::string upload = dir.file("upload.jfr");
    std::ofstream(upload, std::ios::binary) << parts[0].data;
    const auto recording = jfr::reader::Recording::open(upload);
    convert::SampleOptions executionSamples;
    executionSamples.eventName = "jdk.ExecutionSample";
    const uint64_t weighed = convert::loadProfile(recording, executionSamples).totalSamples *
                             (1'000'000'000 / std::stoull(request.query("sampleRate")));
    EXPECT_EQ(weighed, static_cast<uint64_t>(convert::loadProfile(recording).totalCpuNanos));
  }
  std::multiset<std::string> written;
  for (const auto& [name, data] : files) written.insert(data);
  EXPECT_TRUE(uploaded == written) << pyroscope.requests().size() << " uploads of " << files.size() << " files";

  // OTLP: a request per file, every CPU sample in it, its JVM named.
  uint64_t fileSamples = 0, otlpSamples = 0;
  for (const auto& [name, data] : files) {
    fileSamples += convert::loadProfile(jfr::reader::Recording::open((dir.path() / name).string())).totalSamples;
  }
  const auto requests = collector.requests();
  EXPECT_EQ(requests.size(), files.size());
  std::set<std::string> pids;
  for (const ReceivedRequest& request : requests) {
    const std::string body = dir.file("request.pb");
    std::ofstream(body, std::ios::binary) << request.body;
    OtlpRequestReader reader(body);
    // A file without a sample (a JVM that exits just after a rotation) is a request without a profile.
    for (const OtlpProfile& profile : reader.profiles()) {
      if (reader.sampleType(profile) == "cpu/nanoseconds") otlpSamples += reader.totals(profile).events;
    }
    const std::string pid = reader.resourceAttribute("process.pid");
    pids.insert(pid);
    if (pid != "int:" + std::to_string(staying->pid()) && pid != "int:" + std::to_string(leaving->pid())) continue;
    EXPECT_EQ(reader.resourceAttribute("service.name"), "CpuShares");
    EXPECT_FALSE(reader.resourceAttribute("host.name").empty());
    EXPECT_EQ(reader.resourceAttribute("process.executable.name"), "java");
  }
  EXPECT_EQ(otlpSamples, fileSamples);
  // Each of the two JVMs' files, and those of any other JVM of the host: each request names one.
  EXPECT_TRUE(pids.contains("int:" + std::to_string(staying->pid())));
  EXPECT_TRUE(pids.contains("int:" + std::to_string(leaving->pid())));
  // Delivered files leave the spools.
  for (const auto& spool : fs::directory_iterator(dir.path() / ".jfrbpf-push")) {
    EXPECT_TRUE(fs::is_empty(spool.path())) << spool.path();
  }
}

}  // namespace
}  // namespace jfrbpf::test
