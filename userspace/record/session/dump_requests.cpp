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
  while (std::optional<DumpRequest> request = server->acceptRequest()) {
    auto gathered = std::make_shared<std::promise<std::vector<DumpFile>>>();
    pipeline.runOnConsumer([gathered, outputs, checkOnly = request->checkOnly] {
      // A check only needs this task to run: the consumer thread is alive.
      std::vector<DumpFile> files;
      for (TargetOutput* output : checkOnly ? std::vector<TargetOutput*>() : outputs) {
        for (DumpFile& file : output->filesForDump()) files.push_back(std::move(file));
      }
      gathered->set_value(std::move(files));
    });
    std::future<std::vector<DumpFile>> files = gathered->get_future();
    if (files.wait_for(kGatherTimeout) != std::future_status::ready) {
      DumpServer::reply(std::move(request->client), {}, "the recording did not answer in time");
      continue;
    }
    if (request->checkOnly) {
      DumpServer::replyToCheck(std::move(request->client), status());
    } else {
      DumpServer::reply(std::move(request->client), files.get());
    }
  }
}

}  // namespace jfrbpf::record
