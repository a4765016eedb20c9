#pragma once
// A recording's side of `jfrbpf dump`: requests are taken on the recorder's main loop, and the files they
// ask for are gathered on the consumer thread, which owns the outputs, so that the dump holds everything
// sampled up to the request.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "userspace/record/files/dump_channel.h"
#include "userspace/record/output/target_output.h"
#include "userspace/record/session/sample_pipeline.h"

namespace jfrbpf::record {

// The recording's dump socket, or null (said on stderr) when it cannot be made: recording goes on.
std::unique_ptr<DumpServer> openDumpServer();

// Answers the requests waiting at `server` (if any) with the files of `outputs`; a check with `status`'s lines.
void answerDumpRequests(DumpServer* server, SamplePipeline& pipeline, const std::vector<TargetOutput*>& outputs,
                        const std::function<std::vector<std::string>()>& status);

}  // namespace jfrbpf::record
