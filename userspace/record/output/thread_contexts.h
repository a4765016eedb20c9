#pragma once
// The OpenTelemetry thread contexts an output's records carry (bpf/thread_context.bpf.h): each is written on
// its event as a jfr::TraceContext, its attributes named by the key map its process published last
// (otel/process_context.h), and counted by how its read ended, for the summary.
#include <sys/types.h>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bpf/sampler_abi.h"
#include "formats/jfr/writer/types.h"
#include "userspace/record/summary.h"

namespace jfrbpf::record {

class ThreadContexts {
 public:
  // Process `pid`'s attribute key map (index -> name), as its process context published it.
  void setKeyNames(pid_t pid, std::vector<std::string> names) { keyNames_[pid] = std::move(names); }
  void forgetProcess(pid_t pid) { keyNames_.erase(pid); }

  // The context `record` carries (its size already checked: contextBytes), counted; its text lives until the next
  // call.
  jfr::TraceContext of(const jfrbpf_sample_record& record);

  const ContextCounts& counts() const { return counts_; }

 private:
  std::map<pid_t, std::vector<std::string>> keyNames_;
  std::string attributes_;
  ContextCounts counts_;
};

// Whether `record`, `size` bytes long from its header on, holds the whole context its header says it has.
bool contextFits(const jfrbpf_sample_record& record, size_t size);

}  // namespace jfrbpf::record
