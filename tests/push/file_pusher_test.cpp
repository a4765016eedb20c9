// record --push's delivery, against a backend on the loopback (loopback_receiver.h) with the faults real ones
// show: every finished file reaches every destination once, decoded by an independent reader (OTLP: the
// classes generated from formats/otlp/proto; Pyroscope: the multipart form parsed here), nothing is lost
// below the spool's bound while the backend is down, answers 5xx, hangs or drops the connection, and what a
// stopped recorder left is sent by the next.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "base/error.h"
#include "formats/convert/sample_collector.h"
#include "formats/jfr/reader/recording.h"
#include "tests/push/loopback_receiver.h"
#include "formats/jfr/writer/metadata_schema.h"
#include "formats/jfr/writer/recording.h"
#include "test_config.h"
#include "tests/support/child_process.h"
#include "tests/support/scratch_tree.h"
#include "tests/view/otlp_request_reader.h"
#include "tests/view/synthetic_recording.h"
#include "userspace/push/push_credentials.h"
#include "userspace/push/push_destination.h"
#include "userspace/record/files/output_directory.h"
#include "userspace/record/files/push_spool.h"
#include "userspace/record/session/file_pusher.h"

namespace jfrbpf::test {
namespace {

using record::FilePusher;
using record::PushCounts;
using record::PushOptions;
using record::RecordSummary;
using namespace std::chrono_literals;

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Waits up to 20 s (a busy 2-CPU VM converts a file in well under a second) for `done`.
bool eventually(const std::function<bool()>& done) {
  for (int i = 0; i < 400; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(50ms);
  }
  return done();
}

class FilePusherTest : public ScratchTree {
 protected:
  void SetUp() override {
    ScratchTree::SetUp();
    directory_ = UniqueFd(::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  }

  // A finished recording of known contents in the output directory.
  std::string finishedFile(const std::string& name) {
    const std::string path = root_ + "/" + name;
    writeMixedRecording(path);
    return path;
  }

  PushOptions options(std::initializer_list<std::string> destinations) {
    PushOptions o;
    for (const std::string& d : destinations) o.destinations.push_back(push::parsePushDestination(d));
    // Long enough that a slow answer on a busy machine is not taken for a hang (which would send a file
    // twice); the hang test sets its own.
    o.timeoutNs = 10'000'000'000;
    return o;
  }

  std::unique_ptr<FilePusher> pusher(const PushOptions& o) {
    return std::make_unique<FilePusher>(o, directory_.get(), root_);
  }

  static PushCounts finish(FilePusher& p, int64_t timeoutNs = 20'000'000'000) {
    RecordSummary summary;
    p.finish(timeoutNs, summary);
    EXPECT_EQ(summary.pushes.size(), 1u);
    return summary.pushes.empty() ? PushCounts{} : summary.pushes.front();
  }

  UniqueFd directory_;
};

TEST_F(FilePusherTest, OtlpGetsEveryFileAsARequestWithEveryCpuSample) {
  LoopbackReceiver collector;
  auto p = pusher(options({"otlp=" + collector.url()}));
  std::vector<std::string> files = {finishedFile("100-a.jfr"), finishedFile("101-b.jfr"), finishedFile("102-c.jfr")};
  for (const std::string& f : files) p->fileFinished(f);
  const PushCounts counts = finish(*p);
  EXPECT_EQ(counts.delivered, 3u);
  EXPECT_EQ(counts.pending, 0u);
  EXPECT_EQ(counts.failed + counts.dropped, 0u);
  const auto requests = collector.requests();
  ASSERT_EQ(requests.size(), 3u);
  const auto expected = convert::loadProfile(jfr::reader::Recording::open(files.front()));
  for (const ReceivedRequest& r : requests) {
    EXPECT_EQ(r.method, "POST");
    EXPECT_EQ(r.path(), "/v1development/profiles");
    EXPECT_EQ(r.headers.at("content-type"), "application/x-protobuf");
    const std::string body = root_ + "/request.pb";
    std::ofstream(body, std::ios::binary) << r.body;
    OtlpRequestReader reader(body);
    ASSERT_GE(reader.profiles().size(), 1);
    EXPECT_EQ(reader.sampleType(reader.profile(0)), "cpu/nanoseconds");
    EXPECT_EQ(reader.totals(reader.profile(0)).events, expected.totalSamples);
    EXPECT_EQ(reader.totals(reader.profile(0)).values, expected.totalCpuNanos);
  }
  // Delivered files leave the spool; the recordings themselves stay where they were written.
  EXPECT_TRUE(std::filesystem::is_empty(root_ + "/" + record::kPushSpoolDirectory + "/" +
                                        push::parsePushDestination("otlp=" + collector.url()).spoolName()));
  for (const std::string& f : files) EXPECT_TRUE(std::filesystem::exists(f));
}

TEST_F(FilePusherTest, PyroscopeGetsTheFileAsWrittenWithASampleRateThatKeepsItsCpuTime) {
  LoopbackReceiver pyroscope;
  auto p = pusher(options({"pyroscope=" + pyroscope.url()}));
  const std::string file = finishedFile("200-app.jfr");
  p->fileFinished(file);
  EXPECT_EQ(finish(*p).delivered, 1u);
  const auto requests = pyroscope.requests();
  ASSERT_EQ(requests.size(), 1u);
  const ReceivedRequest& r = requests.front();
  EXPECT_EQ(r.path(), "/ingest");
  EXPECT_EQ(r.query("format"), "jfr");
  // Pyroscope weighs each jdk.ExecutionSample 1e9/sampleRate ns: 100 Hz for the file's 10 ms period.
  EXPECT_EQ(r.query("sampleRate"), std::to_string(1'000'000'000 / MixedRecordingFacts::kPeriodNanos));
  const auto recording = jfr::reader::Recording::open(file);
  const int64_t start = recording.chunks().front().startNanos / 1'000'000'000;
  EXPECT_EQ(r.query("from"), std::to_string(start));
  EXPECT_GT(std::stoll(r.query("until")), start);
  EXPECT_NE(r.query("name").find("{hostname="), std::string::npos) << r.query("name");
  const std::vector<FormPart> parts = formParts(r);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].name, "jfr");
  EXPECT_FALSE(parts[0].fileName.empty());  // Pyroscope reads only parts with a file name
  EXPECT_EQ(parts[0].data, contents(file));
}

// Pyroscope labels the samples of jdk.ExecutionSample by their contextId, from the upload's labels part.
TEST_F(FilePusherTest, PyroscopeGetsEachContextsAttributesAsLabels) {
  const std::string path = root_ + "/900-ctx.jfr";
  {
    jfr::RecordingOptions recordingOptions;
    recordingOptions.path = path;
    recordingOptions.sampleEvents = jfr::SampleEvents::kExecution;
    jfr::Recording out(recordingOptions);
    const std::vector<jfr::StackFrame> stack = {{javaMethod(out, "Work", "handle", "(I)V"), 14, 2,
                                                 jfr::FrameType::JitCompiled}};
    const jfr::ThreadId thread = out.internThread({"http-exec-1", 5001, "http-exec-1", 31, false});
    jfr::TraceContext checkout, cart;
    checkout.spanId = 0x1234;
    checkout.attributes = "http.route=/checkout, http.method=POST";
    cart.spanId = 0x5678;
    cart.attributes = "http.route=/cart";
    const jfr::Ticks start = jfr::Recording::now();
    out.cpuSample(start, stack, false, thread, false, 10'000'000, 1, checkout);
    out.cpuSample(start + 10'000'000, stack, false, thread, false, 10'000'000, 1, cart);
    out.cpuSample(start + 20'000'000, stack, false, thread, false, 10'000'000, 1, {});
    out.close();
  }
  LoopbackReceiver pyroscope;
  auto p = pusher(options({"pyroscope=" + pyroscope.url()}));
  p->fileFinished(path);
  EXPECT_EQ(finish(*p).delivered, 1u);
  ASSERT_EQ(pyroscope.requests().size(), 1u);
  const std::vector<FormPart> parts = formParts(pyroscope.requests().front());
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].name, "labels");
  EXPECT_FALSE(parts[1].fileName.empty());
  // Decoded by protoc against the .proto, independently of the code that wrote it.
  const std::string labels = root_ + "/labels.pb";
  std::ofstream(labels, std::ios::binary) << parts[1].data;
  const std::string protos = std::string(kSourceDir) + "/formats/pyroscope";
  const RunResult decoded = run({"sh", "-c", std::string("'") + JFRBPF_PROTOC +
                                                 "' --decode=jfrbpf.pyroscope.LabelsSnapshot -I '" + protos + "' '" +
                                                 protos + "/jfr_labels.proto' < '" + labels + "'"});
  ASSERT_EQ(decoded.exitCode, 0) << decoded.output;
  auto idOf = [](const char* attributes) { return std::to_string(jfr::contextIdOf(attributes)); };
  EXPECT_NE(decoded.output.find("key: " + idOf("http.route=/checkout, http.method=POST")), std::string::npos)
      << decoded.output;
  EXPECT_NE(decoded.output.find("key: " + idOf("http.route=/cart")), std::string::npos) << decoded.output;
  for (const char* text : {"http.route", "/checkout", "http.method", "POST", "/cart"}) {
    EXPECT_NE(decoded.output.find("value: \"" + std::string(text) + "\""), std::string::npos) << text;
  }
  // Two contexts (each an entry and its value), three labels, five strings.
  EXPECT_EQ(std::count(decoded.output.begin(), decoded.output.end(), '{'), 2 * 2 + 3 + 5)
      << decoded.output;
}

TEST_F(FilePusherTest, AnOutageLosesNothingAndEachFileIsDeliveredOnceAfterIt) {
  LoopbackReceiver collector;
  collector.setFault(ReceiverFault::kDown);
  auto p = pusher(options({"otlp=" + collector.url()}));
  for (int i = 0; i < 4; ++i) p->fileFinished(finishedFile("30" + std::to_string(i) + "-x.jfr"));
  ASSERT_TRUE(eventually([&] { return !p->takeMessages().empty(); }));  // "failing (... refused)"
  std::this_thread::sleep_for(1500ms);  // retried meanwhile, with backoff
  EXPECT_EQ(p->counts().front().pending, 4u);
  EXPECT_NE(p->counts().front().lastError.find("no answer"), std::string::npos) << p->counts().front().lastError;
  collector.setFault(ReceiverFault::kNone);
  const PushCounts counts = finish(*p);
  EXPECT_EQ(counts.delivered, 4u);
  EXPECT_EQ(counts.pending + counts.failed + counts.dropped, 0u);
  EXPECT_EQ(collector.requests().size(), 4u);  // each once
}

TEST_F(FilePusherTest, ServerErrorsAreRetriedAndClientErrorsAreNot) {
  LoopbackReceiver collector;
  collector.setFault(ReceiverFault::kStatus, 503);
  auto p = pusher(options({"otlp=" + collector.url()}));
  p->fileFinished(finishedFile("400-a.jfr"));
  ASSERT_TRUE(eventually([&] { return collector.attempts() >= 2; }));
  EXPECT_EQ(p->counts().front().pending, 1u);
  collector.setFault(ReceiverFault::kNone);
  ASSERT_TRUE(eventually([&] { return p->counts().front().delivered == 1; }));

  collector.setFault(ReceiverFault::kStatus, 400);
  const size_t before = collector.attempts();
  p->fileFinished(finishedFile("401-b.jfr"));
  ASSERT_TRUE(eventually([&] { return p->counts().front().failed == 1; }));
  std::this_thread::sleep_for(1500ms);  // past the first retry's time
  EXPECT_EQ(collector.attempts(), before + 1);
  const PushCounts counts = finish(*p);
  EXPECT_EQ(counts.delivered, 1u);
  EXPECT_EQ(counts.pending, 0u);
  EXPECT_NE(counts.lastError.find("HTTP 400"), std::string::npos) << counts.lastError;
}

TEST_F(FilePusherTest, AHangingOrDroppedRequestIsTriedAgain) {
  for (ReceiverFault fault : {ReceiverFault::kHang, ReceiverFault::kCloseEarly}) {
    LoopbackReceiver collector;
    collector.setFault(fault);
    PushOptions o = options({"pyroscope=" + collector.url()});
    o.timeoutNs = 2'000'000'000;
    auto p = pusher(o);
    p->fileFinished(finishedFile("50" + std::to_string(static_cast<int>(fault)) + "-a.jfr"));
    ASSERT_TRUE(eventually([&] { return collector.attempts() >= 1; }));
    ASSERT_TRUE(eventually([&] { return !p->counts().front().lastError.empty(); }));  // timed out, or cut off
    EXPECT_EQ(p->counts().front().pending, 1u);
    collector.setFault(ReceiverFault::kNone);
    const PushCounts counts = finish(*p);
    EXPECT_EQ(counts.delivered, 1u);
    EXPECT_EQ(collector.requests().size(), 1u);
  }
}

TEST_F(FilePusherTest, TheSpoolDropsItsOldestPastItsBoundAndCountsThem) {
  LoopbackReceiver collector;
  collector.setFault(ReceiverFault::kDown);
  PushOptions o = options({"pyroscope=" + collector.url()});
  std::vector<std::string> files;
  for (const char* name : {"600-a.jfr", "601-b.jfr", "602-c.jfr", "603-d.jfr"}) files.push_back(finishedFile(name));
  o.spoolBytes = std::filesystem::file_size(files[2]) + std::filesystem::file_size(files[3]);  // the newest two
  auto p = pusher(o);
  for (const std::string& file : files) p->fileFinished(file);
  EXPECT_EQ(p->counts().front().dropped, 2u);
  EXPECT_EQ(p->counts().front().pending, 2u);
  collector.setFault(ReceiverFault::kNone);
  const PushCounts counts = finish(*p);
  EXPECT_EQ(counts.delivered, 2u);
  EXPECT_EQ(counts.dropped, 2u);
}

TEST_F(FilePusherTest, WhatAStoppedRecorderLeftIsSentByTheNext) {
  LoopbackReceiver collector;
  collector.setFault(ReceiverFault::kDown);
  const PushOptions o = options({"otlp=" + collector.url()});
  {
    auto p = pusher(o);
    p->fileFinished(finishedFile("700-a.jfr"));
    p->fileFinished(finishedFile("701-b.jfr"));
    RecordSummary summary;
    p->finish(500'000'000, summary);  // the backend stays down past the end's wait
    ASSERT_EQ(summary.pushes.size(), 1u);
    EXPECT_EQ(summary.pushes.front().pending, 2u);
  }
  collector.setFault(ReceiverFault::kNone);
  auto next = pusher(o);
  const std::vector<std::string> said = next->takeMessages();
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said.front().find("2 files an earlier recording did not deliver"), std::string::npos) << said.front();
  EXPECT_EQ(finish(*next).delivered, 2u);
  EXPECT_EQ(collector.requests().size(), 2u);
}

TEST_F(FilePusherTest, ASpoolSwappedForALinkIsRefused) {
  const std::string elsewhere = root_ + "-elsewhere";
  std::filesystem::create_directory(elsewhere);
  std::filesystem::create_directory_symlink(elsewhere, root_ + "/" + record::kPushSpoolDirectory);
  EXPECT_THROW(pusher(options({"otlp=http://127.0.0.1:9"})), Error);
  EXPECT_TRUE(std::filesystem::is_empty(elsewhere));
  std::filesystem::remove_all(elsewhere);
}

TEST_F(FilePusherTest, CredentialsFromTheFileAreSentAsHeaders) {
  LoopbackReceiver pyroscope, collector;
  PushOptions o = options({"pyroscope=" + pyroscope.url(), "otlp=" + collector.url()});
  o.credentialsFile = root_ + "/credentials";
  std::ofstream(*o.credentialsFile) << "# for the test\nPYROSCOPE_AUTH_TOKEN=tok-1\nPYROSCOPE_TENANT_ID=team-a\n"
                                       "OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer%20otlp-2,x-extra=1\n";
  ::chmod(o.credentialsFile->c_str(), 0600);
  auto p = pusher(o);
  p->fileFinished(finishedFile("800-a.jfr"));
  RecordSummary summary;
  p->finish(20'000'000'000, summary);
  ASSERT_EQ(pyroscope.requests().size(), 1u);
  ASSERT_EQ(collector.requests().size(), 1u);
  EXPECT_EQ(pyroscope.requests().front().headers.at("authorization"), "Bearer tok-1");
  EXPECT_EQ(pyroscope.requests().front().headers.at("x-scope-orgid"), "team-a");
  EXPECT_EQ(collector.requests().front().headers.at("authorization"), "Bearer otlp-2");
  EXPECT_EQ(collector.requests().front().headers.at("x-extra"), "1");
  // A file others can read is refused at the start, before anything is recorded.
  ::chmod(o.credentialsFile->c_str(), 0644);
  EXPECT_THROW(push::CredentialSource::load(o.credentialsFile), Error);
}

}  // namespace
}  // namespace jfrbpf::test
