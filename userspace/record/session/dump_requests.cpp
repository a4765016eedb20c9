#include "userspace/record/session/dump_requests.h"

#include <chrono>
#include <cstdio>
#include <future>

#include "base/error.h"

namespace jfrbpf::record {

std::unique_ptr<DumpServer> openDumpServer() {
  try {
    return std::make_unique<DumpServer>();
  } catch (const Error& e) {
    std::fprintf(stderr, "jfrbpf: warning: jfrbpf dump will not reach this recording: %s\n", e.what());
    return nullptr;
  }
}

void answerDumpRequests(DumpServer* server, SamplePipeline& pipeline, const std::vector<TargetOutput*>& outputs,
                        const std::function<std::vector<std::string>()>& status) {
  // The consumer drains at least every 50 ms; a chunk written out takes milliseconds.
  constexpr auto kGatherTimeout = std::chrono::seconds(10);
  if (server == nullptr) return;
  struct Gathered {
    std::vector<DumpFile> files;
    MemoryAccount memory;
  };
  while (std::optional<DumpRequest> request = server->acceptRequest()) {
    auto gathered = std::make_shared<std::promise<Gathered>>();
    pipeline.runOnConsumer([gathered, outputs, &pipeline, checkOnly = request->checkOnly] {
      // A check needs this task to run (the consumer thread is alive) and where memory is, which the
      // consumer's caches hold.
      Gathered result;
      if (checkOnly) result.memory = pipeline.memoryAccount();
      for (TargetOutput* output : checkOnly ? std::vector<TargetOutput*>() : outputs) {
        for (DumpFile& file : output->filesForDump()) result.files.push_back(std::move(file));
      }
      gathered->set_value(std::move(result));
    });
    std::future<Gathered> answer = gathered->get_future();
    if (answer.wait_for(kGatherTimeout) != std::future_status::ready) {
      DumpServer::reply(std::move(request->client), {}, "the recording did not answer in time");
      continue;
    }
    Gathered result = answer.get();
    if (request->checkOnly) {
      std::vector<std::string> lines = status();
      for (std::string& line : describe(result.memory)) lines.push_back(std::move(line));
      DumpServer::replyToCheck(std::move(request->client), lines);
    } else {
      DumpServer::reply(std::move(request->client), std::move(result.files));
    }
  }
}

}  // namespace jfrbpf::record
