// Listener and session without a JVM: the agent's own connect code talks to the loader's listener in this
// process, so SO_PEERCRED shows our pid and we can play the target.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "base/error.h"
#include "jvmsupport/agent/agent_options.h"
#include "jvmsupport/agent/channel_socket.h"
#include "jvmsupport/agent/command_reader.h"
#include "tests/jvm/stream_builder.h"
#include "userspace/jvm/java_session.h"

namespace jfrbpf::jvm::test {
namespace {

using namespace std::chrono_literals;
using protocol::RecordType;

UniqueFd connectAsAgent(const ChannelListener& listener) {
  agent::AgentOptions options;
  const char* error = nullptr;
  EXPECT_TRUE(agent::parseAgentOptions(listener.agentOptions().c_str(), options, error)) << error;
  return UniqueFd(agent::connectChannel(options));
}

void sendAll(int fd, const std::vector<uint8_t>& bytes) {
  size_t at = 0;
  while (at < bytes.size()) {
    ssize_t n = send(fd, bytes.data() + at, bytes.size() - at, MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      usleep(1000);
      continue;
    }
    ASSERT_GT(n, 0);
    at += static_cast<size_t>(n);
  }
}

// The loader's session with `agent` once that said hello, and nothing more.
std::unique_ptr<JavaSession> sessionAfterHello(ChannelListener& listener, const UniqueFd& agent) {
  StreamBuilder b;
  b.preamble().hello(1, listener.token());
  sendAll(agent.get(), b.bytes());
  return JavaSession::accept(listener, 5s);
}

TEST(JvmChannel, OptionsCarryARandomNameAndToken) {
  ChannelListener a(getpid()), b(getpid());
  EXPECT_NE(a.agentOptions(), b.agentOptions());
  EXPECT_NE(a.token(), b.token());
  EXPECT_NE(a.agentOptions().find("protocol:" + std::to_string(protocol::kVersion)), std::string::npos);
  EXPECT_EQ(a.agentOptions().find('='), std::string::npos) << "jcmd would split the options at '='";
}

TEST(JvmChannel, SessionReadsHelloAndRecordsThenSeesACleanEnd) {
  ChannelListener listener(getpid());
  UniqueFd agent = connectAsAgent(listener);
  ASSERT_TRUE(agent);
  StreamBuilder b;
  b.preamble().hello(1, listener.token());
  b.record(RecordType::kThreadStart, protocol::ThreadStart{5, static_cast<uint32_t>(getpid()), 0, 1, "main"});
  sendAll(agent.get(), b.bytes());

  std::unique_ptr<JavaSession> session = JavaSession::accept(listener, 5s);
  ASSERT_TRUE(session->model().agent().has_value());
  EXPECT_EQ(session->model().agent()->vmName, "Test VM");
  EXPECT_TRUE(session->drainUntil([](const JavaModel& m) { return m.threads().size() == 1; }, 5s));

  StreamBuilder bye;
  bye.record(RecordType::kGoodbye, protocol::Goodbye{static_cast<uint32_t>(protocol::GoodbyeReason::kVmDeath), 9});
  sendAll(agent.get(), bye.bytes());
  agent.reset();
  EXPECT_FALSE(session->drainUntil([](const JavaModel&) { return false; }, 5s));
  EXPECT_EQ(session->end(), SessionEnd::kVmExited);
  EXPECT_EQ(session->fd(), -1);
  EXPECT_EQ(session->model().threads().byJavaId(1)->name, "main");
}

TEST(JvmChannel, WrongTokenEndsTheSession) {
  ChannelListener listener(getpid());
  UniqueFd agent = connectAsAgent(listener);
  StreamBuilder b;
  b.preamble().hello(1, {});  // all-zero token: not this listener's
  sendAll(agent.get(), b.bytes());
  EXPECT_THROW(JavaSession::accept(listener, 2s), Error);
}

TEST(JvmChannel, GarbageEndsTheSessionAndClosesTheChannel) {
  ChannelListener listener(getpid());
  UniqueFd agent = connectAsAgent(listener);
  std::unique_ptr<JavaSession> session = sessionAfterHello(listener, agent);
  sendAll(agent.get(), std::vector<uint8_t>{0xff, 0xff, 0xff, 0x7f, 3, 0});
  EXPECT_FALSE(session->drainUntil([](const JavaModel&) { return false; }, 5s));
  EXPECT_EQ(session->end(), SessionEnd::kProtocolError);
  EXPECT_FALSE(session->error().empty());
  // The agent's side sees the close, which is what makes a real agent go quiet.
  char byte;
  EXPECT_EQ(recv(agent.get(), &byte, 1, 0), 0);
}

// An agent that describes methods without end, until the loader hangs up: how far its model got, and why the
// session ended.
struct Flooded {
  SessionEnd end;
  std::string error;
  size_t modelBytes;
};
Flooded floodWithMethods(const SessionLimits& limits) {
  ChannelListener listener(getpid());
  UniqueFd agent = connectAsAgent(listener);
  StreamBuilder hello;
  hello.preamble().hello(1, listener.token());
  sendAll(agent.get(), hello.bytes());
  std::unique_ptr<JavaSession> session = JavaSession::accept(listener, 5s, limits);

  StreamBuilder b;
  b.record(RecordType::kClass, protocol::ClassInfo{1, 0, 0, 0, "C"});
  for (uint64_t i = 0; i < 40000; ++i) {  // about 10 MiB of model
    protocol::MethodInfo m;
    m.methodId = 0x1000 + i;
    m.classId = 1;
    m.name = "m";
    m.signature = "()V";
    b.method(m, {});
  }
  std::thread sender([&] {
    const std::vector<uint8_t>& bytes = b.bytes();
    for (size_t at = 0; at < bytes.size();) {
      ssize_t n = send(agent.get(), bytes.data() + at, bytes.size() - at, MSG_NOSIGNAL);
      if (n < 0 && errno != EINTR && errno != EAGAIN) return;
      if (n > 0) at += static_cast<size_t>(n);
    }
  });
  EXPECT_FALSE(session->drainUntil([](const JavaModel&) { return false; }, 5s));
  Flooded flooded{session->end(), session->error(), session->model().approximateBytes()};
  agent.reset();
  sender.join();
  return flooded;
}

TEST(JvmChannel, ModelMemoryIsBounded) {
  SessionLimits limits;
  limits.maxModelBytes = 64 * 1024;
  Flooded flooded = floodWithMethods(limits);
  EXPECT_EQ(flooded.end, SessionEnd::kMemoryLimit);
  EXPECT_NE(flooded.error.find("a JVM's share"), std::string::npos) << flooded.error;
}

// Near the loader's ceiling a model may not grow past its floor: the loader's RSS stays under the ceiling
// whatever one agent sends. With room under it, the model grows to its share. Either way what the model
// held goes at once.
TEST(JvmChannel, AModelGrowsPastItsFloorOnlyWhileTheLoaderHasRoom) {
  size_t resident = 0;
  SessionLimits limits;
  limits.maxModelBytes = 4 << 20;
  limits.floorBytes = 1 << 20;
  limits.ceilingBytes = 100 << 20;
  limits.residentBytes = [&resident] { return resident; };

  resident = limits.ceilingBytes + 1;
  Flooded nearCeiling = floodWithMethods(limits);
  EXPECT_EQ(nearCeiling.end, SessionEnd::kMemoryLimit);
  EXPECT_NE(nearCeiling.error.find("more than 1 MiB of metadata while jfrbpf's memory was near its ceiling"),
            std::string::npos) << nearCeiling.error;
  EXPECT_LT(nearCeiling.modelBytes, size_t{64} << 10) << "its methods are freed";

  resident = 10 << 20;
  Flooded withRoom = floodWithMethods(limits);
  EXPECT_EQ(withRoom.end, SessionEnd::kMemoryLimit);
  EXPECT_NE(withRoom.error.find("more than 4 MiB of metadata, a JVM's share"), std::string::npos) << withRoom.error;
}

// Hostile or broken peers cannot hold the recorder up: one that connects and never says hello is given up on
// at the timeout, one that stops reading fails a command at its timeout instead of blocking it, and one that
// closes in the middle of a record ends the session, what came before it kept.
TEST(JvmChannel, APeerThatNeverSaysHelloIsGivenUpOn) {
  ChannelListener listener(getpid());
  UniqueFd agent = connectAsAgent(listener);
  ASSERT_TRUE(agent);
  EXPECT_THROW(JavaSession::accept(listener, 1s), Error);
}

TEST(JvmChannel, APeerThatStopsReadingCannotBlockACommand) {
  ChannelListener listener(getpid());
  UniqueFd agent = connectAsAgent(listener);
  std::unique_ptr<JavaSession> session = sessionAfterHello(listener, agent);
  const std::vector<uint8_t> payload(protocol::kMaxCommandPayload);
  bool taken = true;
  for (int i = 0; i < 64 && taken; ++i) {
    taken = session->sendCommand(protocol::CommandType::kStartTiming, payload, 200ms);
  }
  EXPECT_FALSE(taken) << "64 MiB went into a socket nobody reads";
}

// kReadIterator's descriptor travels with the command: the agent's reader hands out the very file (here a
// pipe: what is written into it comes out of the descriptor taken), and closes any nobody took.
TEST(JvmChannel, ACommandCarriesItsDescriptorToTheAgent) {
  ChannelListener listener(getpid());
  UniqueFd agent = connectAsAgent(listener);
  std::unique_ptr<JavaSession> session = sessionAfterHello(listener, agent);
  int pipeFds[2];
  ASSERT_EQ(pipe(pipeFds), 0);
  UniqueFd readEnd(pipeFds[0]), writeEnd(pipeFds[1]);
  ASSERT_TRUE(session->sendCommand(protocol::CommandType::kReadIterator, {}, 200ms, readEnd.get()));
  ASSERT_TRUE(session->sendCommand(protocol::CommandType::kReadIterator, {}, 200ms, readEnd.get()));

  agent::CommandReader reader;
  protocol::CommandType type{};
  std::span<const uint8_t> payload;
  for (int i = 0; i < 100 && !reader.next(type, payload); ++i) {
    ASSERT_EQ(reader.receive(agent.get()), agent::CommandReader::Status::kOpen);
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_EQ(type, protocol::CommandType::kReadIterator);
  EXPECT_TRUE(payload.empty());
  UniqueFd taken(reader.takeFd());
  ASSERT_TRUE(taken);
  EXPECT_NE(taken.get(), readEnd.get());
  ASSERT_EQ(write(writeEnd.get(), "x", 1), 1);
  char got = 0;
  EXPECT_EQ(read(taken.get(), &got, 1), 1);
  EXPECT_EQ(got, 'x');
  EXPECT_GE(fcntl(taken.get(), F_GETFD) & FD_CLOEXEC, 1) << "a JVM that forks must not pass it on";

  // The second command's copy, not taken, is closed with the reader: then no read end of the pipe is left.
  bool second = reader.next(type, payload);
  for (int i = 0; i < 100 && !second; ++i) {
    ASSERT_EQ(reader.receive(agent.get()), agent::CommandReader::Status::kOpen);
    second = reader.next(type, payload);
    std::this_thread::sleep_for(1ms);
  }
  ASSERT_TRUE(second);
  readEnd.reset();
  taken.reset();
  reader.reset();
  signal(SIGPIPE, SIG_IGN);
  errno = 0;
  EXPECT_EQ(write(writeEnd.get(), "x", 1), -1) << "a read end is still open";
  EXPECT_EQ(errno, EPIPE);
}

TEST(JvmChannel, APeerThatClosesInTheMiddleOfARecordEndsTheSession) {
  ChannelListener listener(getpid());
  UniqueFd agent = connectAsAgent(listener);
  StreamBuilder b;
  b.preamble().hello(1, listener.token());
  b.record(RecordType::kThreadStart, protocol::ThreadStart{5, static_cast<uint32_t>(getpid()), 0, 1, "main"});
  StreamBuilder next;
  next.record(RecordType::kThreadStart, protocol::ThreadStart{6, static_cast<uint32_t>(getpid()), 0, 2, "worker"});
  sendAll(agent.get(), b.bytes());
  std::unique_ptr<JavaSession> session = JavaSession::accept(listener, 5s);
  sendAll(agent.get(), std::vector<uint8_t>(next.bytes().begin(), next.bytes().begin() + next.bytes().size() / 2));
  agent.reset();
  EXPECT_FALSE(session->drainUntil([](const JavaModel&) { return false; }, 5s));
  EXPECT_EQ(session->end(), SessionEnd::kClosed);
  EXPECT_NE(session->error().find("in the middle of a record"), std::string::npos) << session->error();
  EXPECT_EQ(session->model().threads().size(), 1u);
}

TEST(JvmChannel, OnlyTheTargetProcessIsAccepted) {
  ChannelListener listener(getpid());
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Another process that learnt the name: it connects and waits to be closed.
    UniqueFd fd = connectAsAgent(listener);
    char byte;
    recv(fd.get(), &byte, 1, 0);
    _exit(0);
  }
  EXPECT_THROW(listener.accept(700ms), Error);
  UniqueFd agent = connectAsAgent(listener);
  EXPECT_TRUE(listener.accept(2s));
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status));
}

}  // namespace
}  // namespace jfrbpf::jvm::test
